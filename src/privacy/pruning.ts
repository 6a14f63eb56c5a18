// What the service keeps, for how long (docs/operations.md, "Data lifetime"): every table that
// grows with traffic is pruned here by its retention setting or by its own expiry, or is
// bookkeeping and kept. The tables that grow with every event are partitioned by week: a week past
// the retention is dropped whole, which costs the creates running meanwhile next to nothing
// (`npm run bench -- --retention`, docs/performance.md). What is left goes a small batch per
// statement, oldest first, resting twenty times as long as each batch took: the other tables,
// and the rows an upgraded installation still holds in a table's `_history` partition.
import { setTimeout as sleep } from "node:timers/promises";
import { deleteExpiredAccountRecords } from "../accounts/sql/expiry.ts";
import type { Config } from "../config/config.ts";
import { deleteExpiredKeys, IDEMPOTENCY_RETENTION_SECONDS } from "../payments/core/idempotency-store.ts";
import { deleteClosedAbandonedBefore } from "../payments/create/abandoned-store.ts";
import { deleteProcessorEventsBefore } from "../payments/processor-events/store.ts";
import { deleteReceiptsBefore } from "../payments/receipts/store.ts";
import { deleteAuditEntriesBefore } from "../platform/audit/store.ts";
import type { Clock } from "../platform/clock.ts";
import type { Database, Queryable } from "../platform/db/database.ts";
import { dropWeeksBefore, makeWeeksDue, type PartitionedTable } from "../platform/db/partitions.ts";
import { startPeriodic, type Worker } from "../platform/jobs/periodic.ts";
import { deleteSandboxObjectsBefore } from "../platform/settings/store.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { deleteAttemptsBefore, deleteEventsBefore } from "../webhooks/sql/operations.ts";

const DAY_MS = 86_400_000;
const INTERVAL_MS = 60 * 60 * 1000;

/** One kind of record and how it is pruned. */
export interface Pruner {
  /** What the log and the bench call it. */
  name: string;
  /** Rows a batch takes at most: a batch that took fewer was the last. */
  batch: number;
  /** Records from before this go. */
  cutoff(now: Date): Date;
  /** Partitioned tables whose weeks wholly before the cutoff are dropped before any batch runs. */
  weekly: readonly PartitionedTable[];
  deleteBefore(q: Queryable, before: Date, limit: number): Promise<number>;
}

type RetentionConfig = Pick<
  Config,
  "webhookAttemptRetentionDays" | "eventRetentionDays" | "auditRetentionDays"
>;

/** Older than `days`; a setting of 0 keeps the records forever (no pruner). */
const byAge = (
  name: string,
  days: number,
  batch: number,
  deleteBefore: Pruner["deleteBefore"],
  weekly: readonly PartitionedTable[] = [],
): Pruner[] =>
  days === 0
    ? []
    : [{ name, batch, weekly, deleteBefore, cutoff: (now) => new Date(now.getTime() - days * DAY_MS) }];

/** The pruners this configuration calls for, in the order they run. */
export function pruners(config: RetentionConfig): Pruner[] {
  const events = config.eventRetentionDays;
  return [
    // An event takes its deliveries with it: they share its week.
    ...byAge("webhook events", events, 100, deleteEventsBefore, ["webhook_events", "webhook_deliveries"]),
    ...byAge("webhook attempts", config.webhookAttemptRetentionDays, 500, deleteAttemptsBefore, [
      "webhook_attempts",
    ]),
    ...byAge("processor events", events, 500, deleteProcessorEventsBefore, ["processor_events"]),
    ...byAge("receipts", events, 500, deleteReceiptsBefore),
    ...byAge("abandoned checkouts", events, 100, deleteClosedAbandonedBefore),
    ...byAge("sandbox objects", events, 100, deleteSandboxObjectsBefore),
    ...byAge("audit entries", config.auditRetentionDays, 500, deleteAuditEntriesBefore, ["audit_log"]),
    {
      name: "idempotency keys",
      batch: 500,
      weekly: [],
      cutoff: (now) => new Date(now.getTime() - IDEMPOTENCY_RETENTION_SECONDS * 1000),
      deleteBefore: deleteExpiredKeys,
    },
    {
      name: "expired sign-in records",
      batch: 100,
      weekly: [],
      // Each kind has its own expiry, read by the statements themselves.
      cutoff: (now) => now,
      deleteBefore: (q, _before, limit) => deleteExpiredAccountRecords(q, limit),
    },
  ];
}

/**
 * Drops each pruner's expired weeks, then runs its batches until one comes back short; gives the
 * rows deleted by name, and the partitions dropped as "<name>: weeks dropped". `restFactor` is how
 * long to rest after a batch, as a multiple of the time it took.
 */
export async function pruneAll(
  db: Database,
  list: readonly Pruner[],
  now: Date,
  restFactor = 20,
): Promise<Record<string, number>> {
  const pruned: Record<string, number> = {};
  for (const pruner of list) {
    const cutoff = pruner.cutoff(now);
    // Batches delete only what the weeks left, or they would take rows one by one from a week
    // that is dropped whole a few days later.
    let before = cutoff;
    let dropped = 0;
    let elsewhere = false;
    for (const table of pruner.weekly) {
      const weeks = await dropWeeksBefore(db, table, cutoff);
      if (weeks === null) {
        elsewhere = true;
        continue;
      }
      dropped += weeks.dropped;
      if (weeks.historyEnds < before) before = weeks.historyEnds;
    }
    if (dropped > 0) pruned[`${pruner.name}: weeks dropped`] = dropped;
    // Another instance is dropping these weeks and deletes what they leave after it.
    if (elsewhere) continue;
    let total = 0;
    for (;;) {
      const started = performance.now();
      const deleted = await pruner.deleteBefore(db, before, pruner.batch);
      total += deleted;
      if (deleted < pruner.batch) break;
      await sleep((performance.now() - started) * restFactor);
    }
    if (total > 0) pruned[pruner.name] = total;
  }
  return pruned;
}

/** Hourly, on every instance that runs workers: each batch's statement is safe to run twice at once. */
export function startPruning(db: Database, config: RetentionConfig, log: Logger, clock: Clock): Worker {
  const list = pruners(config);
  return startPeriodic(
    "retention",
    INTERVAL_MS,
    async () => {
      const now = clock.now();
      const made = await makeWeeksDue(db, now);
      if (made > 0) log.info({ partitions: made }, "weekly partitions made ahead");
      const pruned = await pruneAll(db, list, now);
      if (Object.keys(pruned).length > 0) log.info({ pruned }, "records past their retention pruned");
    },
    log,
  );
}
