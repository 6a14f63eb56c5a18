import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** What the gauges read at each scrape. */
export interface MetricProbes {
  /** Webhook deliveries waiting for an attempt. */
  queueDepth(): Promise<number>;
  /** When the longest-waiting undelivered webhook was queued; null when none waits. */
  oldestQueuedAt(): Promise<Date | null>;
  /** Whether the database answers a trivial statement within the health check's time. */
  databaseAnswers(): Promise<boolean>;
  /** Each enabled processor, and whether creates pass it over (its breaker is open). */
  breakers(): Record<string, "ok" | "skipped">;
  /** The read replica's replay lag; undefined without DATABASE_READ_URL, null while unmeasured. */
  replicaLagMs(): number | null | undefined;
  /** How long until the end of the last weekly partition made: past it, event writes fail. */
  partitionRunwaySeconds(): Promise<number>;
}

/** One registry per service instance, so several services in one process (tests) stay apart. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<"method" | "route" | "status_code">;
  readonly webhookDeliveries: Counter<"outcome">;
  readonly webhookAttemptSeconds: Histogram<"outcome">;
  readonly webhookFirstAttemptDelaySeconds: Histogram;
  readonly processorFailovers: Counter<"from" | "to" | "reason">;
  readonly processorCreates: Counter<"processor" | "outcome">;

  /** The probes are read on each scrape; `readMaxLagMs` is DATABASE_READ_MAX_LAG_MS. */
  constructor(probes: MetricProbes, readMaxLagMs: number) {
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status_code"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.webhookDeliveries = new Counter({
      name: "webhook_attempts_total",
      help: "Webhook delivery attempts by outcome (delivered, rejected, retry, dropped)",
      labelNames: ["outcome"],
      registers: [this.registry],
    });
    this.webhookAttemptSeconds = new Histogram({
      name: "webhook_attempt_duration_seconds",
      help: "Duration of one webhook attempt",
      labelNames: ["outcome"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.webhookFirstAttemptDelaySeconds = new Histogram({
      name: "webhook_first_attempt_delay_seconds",
      help: "Time from the status change to the first delivery attempt",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [this.registry],
    });
    this.processorFailovers = new Counter({
      name: "checkout_processor_failovers_total",
      help: "Creates that passed a processor over for the next of the route ('none': no next), by reason",
      labelNames: ["from", "to", "reason"],
      registers: [this.registry],
    });
    this.processorCreates = new Counter({
      name: "checkout_processor_creates_total",
      help: "Checkout creates a processor answered, by processor and outcome (opened, refused)",
      labelNames: ["processor", "outcome"],
      registers: [this.registry],
    });
    new Gauge({
      name: "webhook_queue_depth",
      help: "Webhook deliveries waiting for an attempt",
      registers: [this.registry],
      async collect() {
        this.set(await probes.queueDepth().catch(() => Number.NaN));
      },
    });
    new Gauge({
      name: "webhook_queue_oldest_age_seconds",
      help: "How long the longest-waiting undelivered webhook has waited (0 when none waits)",
      registers: [this.registry],
      async collect() {
        const oldest = await probes.oldestQueuedAt().catch(() => undefined);
        this.set(oldest === undefined ? Number.NaN : oldest ? (Date.now() - oldest.getTime()) / 1000 : 0);
      },
    });
    new Gauge({
      name: "checkout_database_up",
      help: "1 when the database answered this scrape's check, 0 when it did not",
      registers: [this.registry],
      async collect() {
        this.set((await probes.databaseAnswers()) ? 1 : 0);
      },
    });
    new Gauge({
      name: "checkout_partition_runway_seconds",
      help: "Time left before the last weekly partition made ends (the retention worker keeps 8 weeks)",
      registers: [this.registry],
      async collect() {
        this.set(await probes.partitionRunwaySeconds().catch(() => Number.NaN));
      },
    });
    new Gauge({
      name: "checkout_processor_breaker_open",
      help: "1 while creates pass this processor over (its breaker is open), else 0",
      labelNames: ["processor"],
      registers: [this.registry],
      collect() {
        for (const [processor, status] of Object.entries(probes.breakers())) {
          this.set({ processor }, status === "skipped" ? 1 : 0);
        }
      },
    });
    if (probes.replicaLagMs() !== undefined) {
      new Gauge({
        name: "checkout_database_replica_lag_seconds",
        help: "The read replica's replay lag (NaN while it cannot be measured)",
        registers: [this.registry],
        collect() {
          const lag = probes.replicaLagMs();
          this.set(lag === null || lag === undefined ? Number.NaN : lag / 1000);
        },
      });
      new Gauge({
        name: "checkout_database_read_max_lag_seconds",
        help: "DATABASE_READ_MAX_LAG_MS: past this lag the replica's reads go to the primary",
        registers: [this.registry],
      }).set(readMaxLagMs / 1000);
    }
  }
}
