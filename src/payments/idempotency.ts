import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";

/** DESIGN §2: a key answers with its first result for 24 hours. */
const RETENTION_SECONDS = 24 * 60 * 60;

export function requestFingerprint(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

/**
 * Claims an Idempotency-Key for a request. Returns the stored response when the same request was
 * already answered, null when this request now owns the key; throws on a conflict.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  groupId: string,
  key: string,
  fingerprint: string,
): Promise<unknown | null> {
  const claimed = await db.query(
    `INSERT INTO idempotency_keys (group_id, key, request_hash) VALUES ($1, $2, $3)
     ON CONFLICT (group_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
       WHERE idempotency_keys.created_at < now() - make_interval(secs => $4)
     RETURNING key`,
    [groupId, key, fingerprint, RETENTION_SECONDS],
  );
  if (claimed.length === 1) return null;
  const [existing] = await db.query<{ request_hash: string; response: unknown }>(
    "SELECT request_hash, response FROM idempotency_keys WHERE group_id = $1 AND key = $2",
    [groupId, key],
  );
  if (!existing) return claimIdempotencyKey(db, groupId, key, fingerprint);
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
  return existing.response;
}

export async function storeIdempotentResponse(
  db: Queryable,
  groupId: string,
  key: string,
  response: unknown,
) {
  await db.query("UPDATE idempotency_keys SET response = $3 WHERE group_id = $1 AND key = $2", [
    groupId,
    key,
    JSON.stringify(response),
  ]);
}

/** A failed request frees its key so the merchant can retry with it. */
export async function releaseIdempotencyKey(db: Queryable, groupId: string, key: string) {
  await db.query("DELETE FROM idempotency_keys WHERE group_id = $1 AND key = $2 AND response IS NULL", [
    groupId,
    key,
  ]);
}
