// The queue as operations sees it (its depth, its age), and the pruning of old attempt logs.
import type { Queryable } from "../../db/database.ts";

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
export async function deleteAttemptsBefore(q: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT id FROM webhook_attempts WHERE attempted_at < $1 ORDER BY attempted_at LIMIT $2
     ) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
