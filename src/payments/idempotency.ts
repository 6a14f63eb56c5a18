import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import {
  type CreatePlan,
  claimIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from "./store.ts";

/** DESIGN §2: a key answers with its first result for 24 hours. */
const RETENTION_SECONDS = 24 * 60 * 60;

/** The same JSON with object keys sorted, so a reordered body is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function requestFingerprint(body: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(body)))
    .digest("hex");
}

export interface IdempotentCreate {
  groupId: string;
  key: string;
  request: unknown;
  /** How long an unanswered request keeps its key before a retry may take it over. */
  leaseSeconds: number;
  /** The plan if this request is the key's first (or the key expired). */
  fresh: Omit<CreatePlan, "safeSite">;
  turn: number;
}

/**
 * Carries out `work` at most once per (group, key, request): a repeat of an answered request gets
 * the first answer, a different request with the same key gets 409, a failed run frees the key,
 * and a run that died unanswered is carried out again, with the same plan, once its lease ends.
 */
export async function runIdempotently<T>(
  db: Queryable,
  create: IdempotentCreate,
  work: (plan: CreatePlan) => Promise<T>,
): Promise<T> {
  const { groupId, key } = create;
  const fingerprint = requestFingerprint(create.request);
  for (;;) {
    const plan = await claimIdempotencyKey(db, {
      groupId,
      key,
      fingerprint,
      retentionSeconds: RETENTION_SECONDS,
      leaseSeconds: create.leaseSeconds,
      fresh: create.fresh,
      turn: create.turn,
    });
    if (plan) {
      try {
        const result = await work(plan);
        await storeIdempotentResponse(db, groupId, key, result);
        return result;
      } catch (error) {
        await releaseIdempotencyKey(db, groupId, key).catch(() => {});
        throw error;
      }
    }
    const existing = await findIdempotencyKey(db, groupId, key);
    if (!existing) continue; // released between the two statements: claim again
    if (existing.request_hash !== fingerprint) {
      throw new ApiError(
        "IDEMPOTENCY_CONFLICT",
        "This Idempotency-Key was already used with a different request",
      );
    }
    if (existing.response === null) {
      throw new ApiError(
        "IDEMPOTENCY_CONFLICT",
        "A request with this Idempotency-Key is still being processed",
      );
    }
    return existing.response as T;
  }
}
