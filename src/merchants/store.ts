// Every statement on groups, SafeSites, API keys and service settings.
import type { Queryable } from "../platform/db/database.ts";

export interface GroupRow {
  id: string;
  name: string;
  webhook_secret: string;
  previous_webhook_secrets: EarlierSecret[];
  created_at: Date;
}

export interface SafeSiteRow {
  id: string;
  name: string;
  url: string;
  is_active: boolean;
}

/** NOTIFY channel carrying revoked public keys to every instance's auth cache. */
export const API_KEYS_CHANNEL = "api_keys_revoked";

export async function insertGroup(q: Queryable, group: { id: string; name: string; webhookSecret: string }) {
  await q.query("INSERT INTO groups (id, name, webhook_secret) VALUES ($1, $2, $3)", [
    group.id,
    group.name,
    group.webhookSecret,
  ]);
}

export async function findGroupRow(q: Queryable, groupId: string): Promise<GroupRow | undefined> {
  const [row] = await q.query<GroupRow>("SELECT * FROM groups WHERE id = $1", [groupId]);
  return row;
}

/** True when at least one group exists; takes a lock so instances starting together agree. */
export async function lockAndCheckAnyGroup(tx: Queryable): Promise<boolean> {
  await tx.query("SELECT pg_advisory_xact_lock(7302115)");
  const [existing] = await tx.query("SELECT 1 FROM groups LIMIT 1");
  return existing !== undefined;
}

/** A signing secret retired by a rotation, still signing until `expiresAt` (ISO 8601). */
export interface EarlierSecret {
  secret: string;
  expiresAt: string;
}

/**
 * Earlier secrets still signing, oldest expiry first, as a statement's expression over a group
 * row: expired ones are dropped whenever the list is written.
 */
const UNEXPIRED_EARLIER = `(SELECT entry FROM jsonb_array_elements(previous_webhook_secrets) AS e(entry)
   WHERE (entry->>'expiresAt')::timestamptz > now())`;

/**
 * Retires the current secret for `graceSeconds` (none: at once) and keeps every earlier one until
 * its own expiry. `rotated` false (and nothing changed) when `maxEarlier` earlier secrets are still
 * signing; undefined for no such group.
 */
export async function rotateGroupWebhookSecret(
  q: Queryable,
  groupId: string,
  newSecret: string,
  graceSeconds: number,
  maxEarlier: number,
): Promise<{ rotated: boolean; retiredUntil: Date } | undefined> {
  const [row] = await q.query<{ rotated: boolean; retired_until: Date }>(
    `WITH target AS (
       SELECT id, (SELECT count(*) FROM ${UNEXPIRED_EARLIER} AS kept) + CASE WHEN $3 > 0 THEN 1 ELSE 0 END
         <= $4 AS fits
       FROM groups WHERE id = $1
     ), rotated AS (
       UPDATE groups g SET webhook_secret = $2, previous_webhook_secrets = (
           SELECT COALESCE(jsonb_agg(entry ORDER BY (entry->>'expiresAt')::timestamptz), '[]'::jsonb) FROM (
             SELECT entry FROM ${UNEXPIRED_EARLIER} AS kept
             UNION ALL
             SELECT jsonb_build_object('secret', g.webhook_secret, 'expiresAt', now() + make_interval(secs => $3))
             WHERE $3 > 0
           ) AS earlier(entry))
       FROM target WHERE g.id = target.id AND target.fits
       RETURNING g.id
     )
     SELECT EXISTS (SELECT 1 FROM rotated) AS rotated, now() + make_interval(secs => $3) AS retired_until
     FROM target`,
    [groupId, newSecret, graceSeconds, maxEarlier],
  );
  return row && { rotated: row.rotated, retiredUntil: row.retired_until };
}

export function listSafeSiteRows(q: Queryable, groupId: string): Promise<SafeSiteRow[]> {
  return q.query<SafeSiteRow>(
    "SELECT id, name, url, is_active FROM safe_sites WHERE group_id = $1 ORDER BY position",
    [groupId],
  );
}

export async function insertSafeSite(
  q: Queryable,
  site: { id: string; groupId: string; name: string; url: string; isActive: boolean },
): Promise<SafeSiteRow> {
  const [row] = await q.query<SafeSiteRow>(
    `INSERT INTO safe_sites (id, group_id, name, url, is_active) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, name, url, is_active`,
    [site.id, site.groupId, site.name, site.url, site.isActive],
  );
  return row as SafeSiteRow;
}

export async function updateSafeSite(
  q: Queryable,
  id: string,
  patch: { name: string | null; url: string | null; isActive: boolean | null },
  groupId: string | null = null,
): Promise<(SafeSiteRow & { group_id: string }) | undefined> {
  const [row] = await q.query<SafeSiteRow & { group_id: string }>(
    `UPDATE safe_sites SET name = COALESCE($2, name), url = COALESCE($3, url), is_active = COALESCE($4, is_active)
     WHERE id = $1 AND ($5::uuid IS NULL OR group_id = $5) RETURNING id, name, url, is_active, group_id`,
    [id, patch.name, patch.url, patch.isActive, groupId],
  );
  return row;
}

export async function insertApiKey(
  q: Queryable,
  key: { publicKey: string; groupId: string; secretHash: Buffer },
) {
  await q.query("INSERT INTO api_keys (public_key, group_id, secret_hash) VALUES ($1, $2, $3)", [
    key.publicKey,
    key.groupId,
    key.secretHash,
  ]);
}

export async function findActiveApiKey(
  q: Queryable,
  publicKey: string,
): Promise<{ group_id: string; secret_hash: Uint8Array } | undefined> {
  const [row] = await q.query<{ group_id: string; secret_hash: Uint8Array }>(
    "SELECT group_id, secret_hash FROM api_keys WHERE public_key = $1 AND revoked_at IS NULL",
    [publicKey],
  );
  return row;
}

/**
 * Revokes a key (of one group, when `groupId` is given) and tells every instance to drop it from
 * its auth cache (on commit).
 */
/** The revoked key's group, or null when no active key (of `groupId`) has that public key. */
export async function revokeApiKey(
  q: Queryable,
  publicKey: string,
  groupId: string | null = null,
): Promise<string | null> {
  const [row] = await q.query<{ group_id: string }>(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = now()
       WHERE public_key = $1 AND revoked_at IS NULL AND ($3::uuid IS NULL OR group_id = $3)
       RETURNING public_key, group_id
     )
     SELECT group_id, pg_notify($2, public_key) FROM revoked`,
    [publicKey, API_KEYS_CHANNEL, groupId],
  );
  return row?.group_id ?? null;
}

export interface ApiKeyRow {
  public_key: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** A group's keys, active first, newest first; never their secrets (only hashes are kept). */
export function listApiKeys(q: Queryable, groupId: string): Promise<ApiKeyRow[]> {
  return q.query<ApiKeyRow>(
    `SELECT public_key, created_at, revoked_at FROM api_keys WHERE group_id = $1
     ORDER BY revoked_at IS NOT NULL, created_at DESC LIMIT 200`,
    [groupId],
  );
}

export function listGroupRows(q: Queryable, limit: number): Promise<(GroupRow & { active_sites: number })[]> {
  return q.query(
    `SELECT g.*, (SELECT count(*)::int FROM safe_sites s WHERE s.group_id = g.id AND s.is_active) AS active_sites
     FROM groups g ORDER BY g.created_at DESC LIMIT $1`,
    [limit],
  );
}

/** Every group's signing secrets as stored (sealed, or plain from before sealing). */
export function listGroupSecrets(
  q: Queryable,
): Promise<{ id: string; webhook_secret: string; previous_webhook_secrets: EarlierSecret[] }[]> {
  return q.query("SELECT id, webhook_secret, previous_webhook_secrets FROM groups ORDER BY id");
}

/** Replaces a group's secrets with their resealed form, unless a rotation changed them meanwhile. */
export async function replaceGroupSecrets(
  q: Queryable,
  groupId: string,
  was: { current: string; earlier: EarlierSecret[] },
  sealed: { current: string; earlier: EarlierSecret[] },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE groups SET webhook_secret = $4, previous_webhook_secrets = $5::jsonb
     WHERE id = $1 AND webhook_secret = $2 AND previous_webhook_secrets = $3::jsonb RETURNING id`,
    [groupId, was.current, JSON.stringify(was.earlier), sealed.current, JSON.stringify(sealed.earlier)],
  );
  return rows.length === 1;
}

/** Points a group's "Default" SafeSite at `url`; false when it was there already (or has none). */
export async function moveDefaultSafeSite(q: Queryable, groupId: string, url: string): Promise<boolean> {
  const rows = await q.query(
    "UPDATE safe_sites SET url = $2 WHERE group_id = $1 AND name = 'Default' AND url <> $2 RETURNING id",
    [groupId, url],
  );
  return rows.length > 0;
}
