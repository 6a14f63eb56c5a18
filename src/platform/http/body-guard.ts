import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { ApiError } from "./errors.ts";

/** Deeper than any body the API accepts; deep enough nesting would overflow JSON.stringify. */
const MAX_DEPTH = 32;
/** UTF-16 surrogates without their other half, which PostgreSQL cannot store (nor NUL). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);

/**
 * Refuses a parsed JSON body that could only fail later, deep in the database or a hash: too
 * deeply nested, or holding strings (values or keys) PostgreSQL cannot store. Iterative, so a
 * hostile body cannot exhaust the stack here either.
 */
export function assertStorableJson(body: unknown): void {
  const pending: [unknown, number][] = [[body, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop() as [unknown, number];
    if (typeof value === "string") {
      if (unstorable(value)) {
        throw new ApiError(
          "INVALID_REQUEST",
          "Strings must not contain NUL characters or unpaired surrogates",
        );
      }
    } else if (value !== null && typeof value === "object") {
      if (depth >= MAX_DEPTH) {
        throw new ApiError("INVALID_REQUEST", `The body is nested deeper than ${MAX_DEPTH} levels`);
      }
      for (const [key, item] of Object.entries(value)) {
        pending.push([key, depth + 1], [item, depth + 1]);
      }
    }
  }
}

/** A callback hook: it waits for nothing, and an async hook costs every request a promise. */
export function rejectUnstorableBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  if (request.body !== null && typeof request.body === "object" && !Buffer.isBuffer(request.body)) {
    try {
      assertStorableJson(request.body);
    } catch (error) {
      done(error as Error);
      return;
    }
  }
  done();
}
