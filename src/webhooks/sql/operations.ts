// The queue as operations sees it (its depth, its age), and the pruning of old events and attempt logs.

import type { Queryable } from "../../platform/db/database.ts";
import { deleteOldestBefore } from "../../platform/db/prune.ts";

/** When the longest-waiting undelivered event was queued; null when nothing waits. */
export async function oldestPendingDelivery(q: Queryable): Promise<Date | null> {
  const [row] = await q.query<{ oldest: Date | null }>(
    "SELECT min(created_at) AS oldest FROM webhook_deliveries WHERE state = 'pending'",
  );
  return row?.oldest ?? null;
}

export async function countPendingDeliveries(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
  );
  return row?.n ?? 0;
}

/** One batch of attempt logs from before `before`, oldest first; how many went. */
export const deleteAttemptsBefore = (q: Queryable, before: Date, limit: number): Promise<number> =>
  deleteOldestBefore(
    q,
    { table: "webhook_attempts", key: "id, attempted_at", time: "attempted_at" },
    before,
    limit,
  );

/**
 * One batch of events created before `before`, oldest first, with their deliveries: what is left
 * of them in `_history` once whole weeks are dropped (src/platform/db/partitions.ts).
 */
export async function deleteEventsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `WITH doomed AS (
       SELECT id, created_at FROM webhook_events WHERE created_at < $1 ORDER BY created_at LIMIT $2
     ), deliveries AS (
       DELETE FROM webhook_deliveries d USING doomed
       WHERE d.event_id = doomed.id AND d.event_created_at = doomed.created_at
     )
     DELETE FROM webhook_events e USING doomed
     WHERE e.id = doomed.id AND e.created_at = doomed.created_at RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
