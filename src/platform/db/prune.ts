import type { Queryable } from "./database.ts";

/** A table pruned oldest first: its time column, and the key (one or more columns) rows go by. */
export interface AgedTable {
  table: string;
  key: string;
  time: string;
}

/**
 * One batch of `aged`'s rows from before `before`, oldest first, through the time column's index;
 * how many went. The names are the stores' constants, never input.
 */
export async function deleteOldestBefore(
  q: Queryable,
  aged: AgedTable,
  before: Date,
  limit: number,
): Promise<number> {
  const { table, key, time } = aged;
  const rows = await q.query(
    `DELETE FROM ${table} WHERE (${key}) IN (
       SELECT ${key} FROM ${table} WHERE ${time} < $1 ORDER BY ${time} LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
