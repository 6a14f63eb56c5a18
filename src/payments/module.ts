// The payments module assembled: the core's one write path, and each use case over it.

import type { Config } from "../config/config.ts";
import { type Clock, systemClock } from "../platform/clock.ts";
import type { Database } from "../platform/db/database.ts";
import { startPeriodic, type Worker } from "../platform/jobs/periodic.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import type { ProcessorRegistry } from "../processor/registry.ts";
import type { WebhookOutbox } from "../webhooks/outbox.ts";
import type { RecordsElsewhere } from "./core/records-elsewhere.ts";
import { PaymentWriter } from "./core/writer.ts";
import { AbandonedCheckouts } from "./create/abandoned.ts";
import { ProcessorBreakers } from "./create/breakers.ts";
import { Failover, type FailoverListener } from "./create/failover.ts";
import { ActiveSafeSites } from "./create/safe-sites.ts";
import { PaymentCreation } from "./create/service.ts";
import { Disputes } from "./disputes/service.ts";
import { Expiry } from "./expiry/service.ts";
import { ProcessorEvents } from "./processor-events/service.ts";
import { PaymentQueries } from "./queries/service.ts";
import { OrphanRefunds } from "./reconciliation/orphans.ts";
import { Reconciliation } from "./reconciliation/service.ts";
import { Refunds } from "./refunds/service.ts";
import { ProcessorRouting } from "./routing/service.ts";

export interface Payments {
  creation: PaymentCreation;
  /** Started and stopped with the service; told of SafeSite changes made by this instance. */
  safeSites: ActiveSafeSites;
  /** Which processors each group's payments go to; its cache is started with the service. */
  routing: ProcessorRouting;
  /** Each processor's breaker: whether creates skip it (shown on /health). */
  breakers: ProcessorBreakers;
  abandoned: AbandonedCheckouts;
  queries: PaymentQueries;
  processorEvents: ProcessorEvents;
  refunds: Refunds;
  disputes: Disputes;
  expiry: Expiry;
  reconciliation: Reconciliation;
  /** Money taken on checkouts a create abandoned, refunded in full by an operator. */
  orphans: OrphanRefunds;
}

export function createPayments(options: {
  db: Database;
  processors: ProcessorRegistry;
  outbox: WebhookOutbox;
  config: Config;
  log: Logger;
  /** Told of every processor passed over and every one that answered a create. */
  onCreate: FailoverListener;
  recordsElsewhere?: RecordsElsewhere | undefined;
  /** What "now" is for every decision of the payments' (expiry, asking again, windows). */
  clock?: Clock | undefined;
}): Payments {
  const { db, processors, outbox, config, log } = options;
  const clock = options.clock ?? systemClock;
  const writer = new PaymentWriter(db, outbox, log);
  const queries = new PaymentQueries(db, clock);
  const refunds = new Refunds(db, processors, queries, config, log, clock);
  const disputes = new Disputes(db, processors, writer, queries, config, log, clock);
  const safeSites = new ActiveSafeSites(db);
  const routing = new ProcessorRouting(db, processors);
  const breakers = new ProcessorBreakers({
    failures: config.processorBreakerFailures,
    openMs: config.processorBreakerMs,
  });
  // An attempt is asked about again after the sweep after next: long enough for a slow answer.
  const abandoned = new AbandonedCheckouts(
    db,
    processors,
    config.abandonedCheckoutSweepMs * 2,
    log,
    options.recordsElsewhere,
  );
  const failover = new Failover(breakers, abandoned, config.processorCreateTimeoutMs, options.onCreate, log);
  return {
    creation: new PaymentCreation(db, routing, failover, writer, queries, safeSites, config, log, clock),
    safeSites,
    routing,
    breakers,
    abandoned,
    queries,
    processorEvents: new ProcessorEvents(db, processors, writer, refunds, disputes, queries, config, log),
    refunds,
    disputes,
    expiry: new Expiry(db, processors, writer, config.expiryRetryMs, log, clock),
    reconciliation: new Reconciliation(db, processors, writer, refunds, disputes, log, clock),
    orphans: new OrphanRefunds(db, processors, config.refundDeadlineMs),
  };
}

/**
 * The background work: expiring links, settling pending refunds, closing abandoned checkouts, and
 * the scheduled reconciliation.
 */
export function startPaymentWorkers(payments: Payments, config: Config, log: Logger): Worker[] {
  const workers = [
    startPeriodic("expiry sweep", config.expirySweepIntervalMs, () => payments.expiry.expireDue(), log),
    startPeriodic("refund settling", config.refundSettleIntervalMs, () => payments.refunds.settleDue(), log),
    // Disputes wait on the same kind of unanswered call as refunds, and are asked at the same pace.
    startPeriodic(
      "dispute settling",
      config.refundSettleIntervalMs,
      () => payments.disputes.settleDue(),
      log,
    ),
    startPeriodic(
      "abandoned checkouts",
      config.abandonedCheckoutSweepMs,
      () => payments.abandoned.closeDue(),
      log,
    ),
  ];
  if (config.reconcileIntervalHours > 0) {
    const intervalMs = config.reconcileIntervalHours * 3_600_000;
    // Checked every few minutes; the run's slot makes it one per interval across all instances.
    const checkEveryMs = Math.min(intervalMs, 5 * 60_000);
    workers.push(
      startPeriodic(
        "scheduled reconciliation",
        checkEveryMs,
        () => payments.reconciliation.runScheduled(intervalMs),
        log,
      ),
    );
  }
  return [...workers, { stop: () => payments.reconciliation.settled() }];
}
