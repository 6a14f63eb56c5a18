import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** One registry per service instance, so several services in one process (tests) stay apart. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<"method" | "route" | "status_code">;
  readonly webhookDeliveries: Counter<"outcome">;
  readonly webhookAttemptSeconds: Histogram<"outcome">;
  readonly webhookFirstAttemptDelaySeconds: Histogram;
  readonly processorFailovers: Counter<"from" | "to" | "reason">;

  /** `queueDepth` is read on each scrape. */
  constructor(queueDepth: () => Promise<number>) {
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
    new Gauge({
      name: "webhook_queue_depth",
      help: "Webhook deliveries waiting for an attempt",
      registers: [this.registry],
      async collect() {
        this.set(await queueDepth().catch(() => Number.NaN));
      },
    });
  }
}
