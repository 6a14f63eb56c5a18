// What the service keeps, for how long (docs/operations.md, "Data lifetime"): every table that
// grows with traffic is pruned here by its retention setting or by its own expiry, or is
// bookkeeping and kept. Pruning goes a small batch per statement, oldest first, and rests twenty
// times as long as each batch took: no statement holds a lock for long, and it takes about a
// twentieth of a database core, the gentlest pace `npm run bench -- --retention` measured (still
// +47 % on the create's p99 while a backlog drains: docs/performance.md), and still prunes twenty
// times faster than 2,000 events a minute arrive.
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import { deleteExpiredAccountRecords } from "../accounts/sql/expiry.ts";
import { deleteAuditEntriesBefore } from "../audit/store.ts";
import type { Config } from "../config.ts";
import type { Database, Queryable } from "../db/database.ts";
import { startPeriodic, type Worker } from "../jobs/periodic.ts";
import { deleteExpiredKeys, IDEMPOTENCY_RETENTION_SECONDS } from "../payments/core/idempotency-store.ts";
import { deleteClosedAbandonedBefore } from "../payments/create/abandoned-store.ts";
import { deleteProcessorEventsBefore } from "../payments/processor-events/store.ts";
import { deleteSandboxObjectsBefore } from "../settings/store.ts";
import { deleteAttemptsBefore, deleteEventsBefore } from "../webhooks/sql/operations.ts";

const DAY_MS = 86_400_000;
const INTERVAL_MS = 60 * 60 * 1000;

/** One kind of record and how one batch of it is pruned. */
export interface Pruner {
  /** What the log and the bench call it. */
  name: string;
  /** Rows a batch takes at most: a batch that took fewer was the last. */
  batch: number;
  prune(q: Queryable, now: Date, batch: number): Promise<number>;
}

type RetentionConfig = Pick<
  Config,
  "webhookAttemptRetentionDays" | "eventRetentionDays" | "auditRetentionDays"
>;

/** Older than `days` before `now`; a setting of 0 keeps the records forever (no pruner). */
const byAge = (
  name: string,
  days: number,
  batch: number,
  deleteBefore: (q: Queryable, before: Date, limit: number) => Promise<number>,
): Pruner[] =>
  days === 0
    ? []
    : [
        {
          name,
          batch,
          prune: (q, now, limit) => deleteBefore(q, new Date(now.getTime() - days * DAY_MS), limit),
        },
      ];

/** The pruners this configuration calls for, in the order they run. */
export function pruners(config: RetentionConfig): Pruner[] {
  return [
    // An event takes its deliveries, their attempts and its receipt with it: a smaller batch.
    ...byAge("webhook events", config.eventRetentionDays, 100, deleteEventsBefore),
    ...byAge("webhook attempts", config.webhookAttemptRetentionDays, 500, deleteAttemptsBefore),
    ...byAge("processor events", config.eventRetentionDays, 500, deleteProcessorEventsBefore),
    ...byAge("abandoned checkouts", config.eventRetentionDays, 100, deleteClosedAbandonedBefore),
    ...byAge("sandbox objects", config.eventRetentionDays, 100, deleteSandboxObjectsBefore),
    ...byAge("audit entries", config.auditRetentionDays, 500, deleteAuditEntriesBefore),
    {
      name: "idempotency keys",
      batch: 500,
      prune: (q, _now, limit) => deleteExpiredKeys(q, IDEMPOTENCY_RETENTION_SECONDS, limit),
    },
    {
      name: "expired sign-in records",
      batch: 100,
      prune: (q, _now, limit) => deleteExpiredAccountRecords(q, limit),
    },
  ];
}

/**
 * Runs each pruner until a batch comes back short; returns the rows pruned by name. `restFactor`
 * is how long to rest after a batch, as a multiple of the time it took.
 */
export async function pruneAll(
  db: Database,
  list: readonly Pruner[],
  now = new Date(),
  restFactor = 20,
): Promise<Record<string, number>> {
  const pruned: Record<string, number> = {};
  for (const pruner of list) {
    let total = 0;
    for (;;) {
      const started = performance.now();
      const deleted = await pruner.prune(db, now, pruner.batch);
      total += deleted;
      if (deleted < pruner.batch) break;
      await sleep((performance.now() - started) * restFactor);
    }
    if (total > 0) pruned[pruner.name] = total;
  }
  return pruned;
}

/** Hourly, on every instance that runs workers: each batch's statement is safe to run twice at once. */
export function startPruning(db: Database, config: RetentionConfig, log: FastifyBaseLogger): Worker {
  const list = pruners(config);
  return startPeriodic(
    "retention",
    INTERVAL_MS,
    async () => {
      const pruned = await pruneAll(db, list);
      if (Object.keys(pruned).length > 0) log.info({ pruned }, "records past their retention pruned");
    },
    log,
  );
}
