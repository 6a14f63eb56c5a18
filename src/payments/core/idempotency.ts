import { createHash } from "node:crypto";
import type { Queryable } from "../../platform/db/database.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import {
  claimIdempotencyKey,
  findIdempotencyKey,
  IDEMPOTENCY_RETENTION_SECONDS,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from "./idempotency-store.ts";

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

export interface IdempotentRequest<Plan> {
  groupId: string;
  scope: string;
  key: string;
  request: unknown;
  /** How long an unanswered request keeps its key before a retry may take it over. */
  leaseSeconds: number;
  /** The plan if this request is the key's first (or the key expired). */
  fresh: Plan;
  /** The stored plan, read back from JSON. */
  revive: (stored: unknown) => Plan;
}

export interface IdempotentAnswer<T> {
  result: T;
  /** The first request's answer, given again (the API says so in Idempotent-Replayed). */
  replayed: boolean;
}

/**
 * Carries out `work` at most once per (group, scope, key, request): a repeat of an answered
 * request gets the first answer, a different request with the same key gets 409, a run that
 * ended in a DomainError frees the key, and a run that failed otherwise, or died unanswered, is
 * carried out again with the same plan once its lease ends. `work` must therefore be safe to resume with the same plan.
 */
export async function runIdempotently<Plan, T>(
  db: Queryable,
  request: IdempotentRequest<Plan>,
  work: (plan: Plan) => Promise<T>,
): Promise<IdempotentAnswer<T>> {
  const { groupId, scope, key } = request;
  const fingerprint = requestFingerprint(request.request);
  for (;;) {
    const stored = await claimIdempotencyKey(db, {
      groupId,
      scope,
      key,
      fingerprint,
      retentionSeconds: IDEMPOTENCY_RETENTION_SECONDS,
      leaseSeconds: request.leaseSeconds,
      fresh: request.fresh,
    });
    if (stored !== undefined) {
      try {
        const result = await work(request.revive(stored));
        await storeIdempotentResponse(db, request, result);
        return { result, replayed: false };
      } catch (error) {
        // A DomainError frees the key: the domain throws one only when the run left nothing to
        // resume (a refusal, or a create that no processor opened: a checkout a timed-out processor
        // may have made was never shown to anyone, and expires). After anything else the work may
        // have happened (at the processor, in the database): the key stays leased, and a retry
        // after the lease resumes the same plan instead of starting a second one.
        if (error instanceof DomainError) await releaseIdempotencyKey(db, request).catch(() => {});
        throw error;
      }
    }
    const existing = await findIdempotencyKey(db, groupId, scope, key);
    if (!existing) continue; // released between the two statements: claim again
    if (existing.request_hash !== fingerprint) {
      throw new DomainError(
        "IDEMPOTENCY_CONFLICT",
        "This Idempotency-Key was already used with a different request",
      );
    }
    if (existing.response === null) {
      // Not a conflict: the same request, still running. Asking again with the same key is safe.
      throw new DomainError(
        "IDEMPOTENCY_IN_PROGRESS",
        "A request with this Idempotency-Key is still being processed; retry with the same key shortly",
      );
    }
    return { result: existing.response as T, replayed: true };
  }
}
