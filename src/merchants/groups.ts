import { randomUUID } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { hashSecret, newPublicKey, newSecretKey, newWebhookSecret } from "./secrets.ts";

export interface SafeSite {
  id: string;
  name: string;
  url: string;
  isActive: boolean;
}

export interface Group {
  groupId: string;
  groupName: string;
  safeSites: SafeSite[];
}

export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

interface SafeSiteRow {
  id: string;
  name: string;
  url: string;
  is_active: boolean;
}

const toSafeSite = (row: SafeSiteRow): SafeSite => ({
  id: row.id,
  name: row.name,
  url: row.url,
  isActive: row.is_active,
});

/** A SafeSite URL is a base: the hosted link is `{url}/pay/{token}`. */
export const normaliseSiteUrl = (url: string): string => url.replace(/\/+$/, "");

export async function listSafeSites(db: Queryable, groupId: string): Promise<SafeSite[]> {
  const rows = await db.query<SafeSiteRow>(
    "SELECT id, name, url, is_active FROM safe_sites WHERE group_id = $1 ORDER BY position",
    [groupId],
  );
  return rows.map(toSafeSite);
}

export async function findGroup(db: Queryable, groupId: string): Promise<Group | null> {
  const [row] = await db.query<{ id: string; name: string }>("SELECT id, name FROM groups WHERE id = $1", [
    groupId,
  ]);
  if (!row) return null;
  return { groupId: row.id, groupName: row.name, safeSites: await listSafeSites(db, groupId) };
}

export async function insertSafeSite(
  db: Queryable,
  groupId: string,
  site: { name: string; url: string; isActive?: boolean | undefined },
): Promise<SafeSite> {
  const [row] = await db.query<SafeSiteRow>(
    `INSERT INTO safe_sites (id, group_id, name, url, is_active) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, name, url, is_active`,
    [randomUUID(), groupId, site.name, normaliseSiteUrl(site.url), site.isActive ?? true],
  );
  return toSafeSite(row as SafeSiteRow);
}

export async function updateSafeSite(
  db: Queryable,
  id: string,
  patch: { name?: string | undefined; url?: string | undefined; isActive?: boolean | undefined },
): Promise<SafeSite | null> {
  const [row] = await db.query<SafeSiteRow>(
    `UPDATE safe_sites SET name = COALESCE($2, name), url = COALESCE($3, url), is_active = COALESCE($4, is_active)
     WHERE id = $1 RETURNING id, name, url, is_active`,
    [
      id,
      patch.name ?? null,
      patch.url === undefined ? null : normaliseSiteUrl(patch.url),
      patch.isActive ?? null,
    ],
  );
  return row ? toSafeSite(row) : null;
}

export async function insertApiKey(db: Queryable, groupId: string): Promise<KeyPair> {
  const pair = { publicKey: newPublicKey(), secretKey: newSecretKey() };
  await db.query("INSERT INTO api_keys (public_key, group_id, secret_hash) VALUES ($1, $2, $3)", [
    pair.publicKey,
    groupId,
    hashSecret(pair.secretKey),
  ]);
  return pair;
}

/** Revokes a key and tells every instance to drop it from its auth cache (on commit). */
export async function revokeApiKey(db: Queryable, publicKey: string, channel: string): Promise<boolean> {
  const rows = await db.query(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = now() WHERE public_key = $1 AND revoked_at IS NULL RETURNING public_key
     )
     SELECT pg_notify($2, public_key) FROM revoked`,
    [publicKey, channel],
  );
  return rows.length === 1;
}

export interface CreatedGroup extends Group, KeyPair {
  webhookSecret: string;
}

export async function createGroup(
  db: Queryable,
  input: { name: string; safeSites: { name: string; url: string; isActive?: boolean | undefined }[] },
): Promise<CreatedGroup> {
  const groupId = randomUUID();
  const webhookSecret = newWebhookSecret();
  await db.query("INSERT INTO groups (id, name, webhook_secret) VALUES ($1, $2, $3)", [
    groupId,
    input.name,
    webhookSecret,
  ]);
  const safeSites: SafeSite[] = [];
  for (const site of input.safeSites) safeSites.push(await insertSafeSite(db, groupId, site));
  const keys = await insertApiKey(db, groupId);
  return { groupId, groupName: input.name, safeSites, ...keys, webhookSecret };
}
