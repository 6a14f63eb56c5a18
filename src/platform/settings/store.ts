// Service-wide values kept in the database: the admin token's hash, sealed installation secrets,
// and the sandbox processor's objects.

import type { Queryable } from "../db/database.ts";
import { deleteOldestBefore } from "../db/prune.ts";

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

/**
 * The sandbox processor's objects, kept with the service's data so that a restart of the sandbox
 * forgets no session, payment or refund. The sandbox itself knows only the interface it is given.
 */
export function sandboxObjectStore(q: Queryable) {
  return {
    load: () =>
      q.query<{ kind: string; id: string; body: unknown }>(
        "SELECT kind, substr(id, length(kind) + 2) AS id, body FROM sandbox_objects",
      ),
    async save(kind: string, id: string, body: unknown): Promise<void> {
      await q.query(
        `INSERT INTO sandbox_objects (id, kind, body) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, body = EXCLUDED.body, updated_at = now()`,
        [`${kind} ${id}`, kind, JSON.stringify(body)],
      );
    },
    async remove(kind: string, id: string): Promise<void> {
      await q.query("DELETE FROM sandbox_objects WHERE id = $1", [`${kind} ${id}`]);
    },
  };
}

/** One batch of sandbox objects untouched since `before` (the sandbox reads what is left at its start). */
export const deleteSandboxObjectsBefore = (q: Queryable, before: Date, limit: number): Promise<number> =>
  deleteOldestBefore(q, { table: "sandbox_objects", key: "id", time: "updated_at" }, before, limit);
