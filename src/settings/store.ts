// Service-wide values kept in the database: the admin token's hash, sealed installation secrets.
import type { Queryable } from "../db/database.ts";

export async function readSetting(q: Queryable, name: string): Promise<string | undefined> {
  const [row] = await q.query<{ value: string }>("SELECT value FROM settings WHERE name = $1", [name]);
  return row?.value;
}

/** Writes a setting and, on commit, tells every instance listening on `channel`. */
export async function writeSetting(
  q: Queryable,
  name: string,
  value: string,
  channel: string,
): Promise<void> {
  await q.query(
    `WITH written AS (
       INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
       RETURNING name
     )
     SELECT pg_notify($3, name) FROM written`,
    [name, value, channel],
  );
}

export async function deleteSetting(q: Queryable, name: string): Promise<void> {
  await q.query("DELETE FROM settings WHERE name = $1", [name]);
}

/** Writes a setting unless it exists; true when this call wrote it. */
export async function insertSettingIfAbsent(q: Queryable, name: string, value: string): Promise<boolean> {
  const rows = await q.query(
    "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value",
    [name, value],
  );
  return rows.length === 1;
}

/** Replaces a setting's value only while it is still `was` (another instance may have done it). */
export async function replaceSetting(q: Queryable, name: string, was: string, value: string): Promise<void> {
  await q.query("UPDATE settings SET value = $3 WHERE name = $1 AND value = $2", [name, was, value]);
}
