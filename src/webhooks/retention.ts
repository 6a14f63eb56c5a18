import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../db/database.ts";
import { startPeriodic, type Worker } from "../jobs/periodic.ts";
import { deleteAttemptsBefore } from "./sql/operations.ts";

const BATCH = 5000;
const INTERVAL_MS = 60 * 60 * 1000;

/**
 * Deletes webhook attempt logs older than the retention, a batch per statement so no statement
 * holds locks for long; a delivery keeps its state and attempt count. Any instance may run it.
 */
export async function pruneAttempts(db: Database, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  let pruned = 0;
  for (;;) {
    const deleted = await deleteAttemptsBefore(db, before, BATCH);
    pruned += deleted;
    if (deleted < BATCH) return pruned;
  }
}

export function startAttemptRetention(
  db: Database,
  retentionDays: number,
  log: FastifyBaseLogger,
): Worker | undefined {
  if (retentionDays === 0) return undefined;
  return startPeriodic(
    "webhook attempt retention",
    INTERVAL_MS,
    async () => {
      const pruned = await pruneAttempts(db, retentionDays);
      if (pruned > 0) log.info({ pruned, retentionDays }, "old webhook attempt logs pruned");
    },
    log,
  );
}
