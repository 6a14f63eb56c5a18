import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { SandboxProcessor, SandboxState } from "./state.ts";

/**
 * What every emulated processor's API does before a handler runs: it accepts only its account's
 * key (compared in constant time), answers 503 to everything during an `outage` fault, and records
 * each request for `GET /sandbox/requests`.
 */
export function guardAccount(
  api: FastifyInstance,
  options: {
    processor: SandboxProcessor;
    state: SandboxState;
    /** The one key the account accepts, as `Authorization: Bearer <key>`. */
    key: string;
    refuse: (reply: FastifyReply) => FastifyReply;
    outage: (reply: FastifyReply) => FastifyReply;
    idempotencyKeyOf: (request: FastifyRequest) => unknown;
  },
): void {
  const { processor, state } = options;
  const expected = Buffer.from(`Bearer ${options.key}`);
  api.addHook("onRequest", async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return options.refuse(reply);
    if (state.inOutage(processor)) return options.outage(reply);
  });
  api.addHook("preHandler", async (request) => {
    const key = options.idempotencyKeyOf(request);
    state.record({
      processor,
      method: request.method,
      path: request.url,
      at: new Date().toISOString(),
      idempotencyKey: typeof key === "string" ? key : null,
      body: request.body ?? null,
    });
  });
}
