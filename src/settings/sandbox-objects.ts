import type { Queryable } from "../db/database.ts";

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
