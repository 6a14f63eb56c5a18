import type { Queryable } from "../../platform/db/database.ts";

/** The cheapest statement that proves the database answers. */
export async function pingDatabase(q: Queryable): Promise<void> {
  await q.query("SELECT 1");
}
