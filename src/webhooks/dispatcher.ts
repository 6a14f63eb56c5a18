import type { FastifyBaseLogger } from "fastify";
import type { Metrics } from "../metrics/metrics.ts";
import type { Services } from "../services.ts";
import type { WebhookPayload } from "./events.ts";
import { OUTBOX_CHANNEL } from "./outbox.ts";
import type { Resolver } from "./safe-connect.ts";
import { type AttemptResult, WebhookSender } from "./sender.ts";
import { signWebhook } from "./signing.ts";

export const USER_AGENT = "Service-Webhook/1.0";

interface ClaimedDelivery {
  id: string;
  url: string;
  destination: string;
  attempts: number;
  sent_timestamp: string;
  created_at: Date;
  event: string;
  payment_id: string;
  payload: WebhookPayload;
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: Date | null;
}

interface PendingResult {
  deliveryId: string;
  attempt: number;
  attemptedAt: Date;
  result: AttemptResult;
  state: "succeeded" | "failed" | "pending";
  retryDelayMs: number;
  done: { resolve: () => void; reject: (error: unknown) => void };
}

export interface DispatcherOptions {
  resolver?: Resolver;
  /** Fallback poll for retries that fell due and for wake-ups that got lost. */
  pollIntervalMs?: number;
  /** At most this many attempts in flight to one receiver host, so a slow one cannot starve others. */
  perDestinationLimit?: number;
}

/** The spec §6.1 headers and body, plus Standard Webhooks signature headers. */
export function buildRequest(delivery: ClaimedDelivery, now = new Date()) {
  // jsonb does not keep key order, so the §6.1 order is rebuilt here.
  const { payload } = delivery;
  const body = JSON.stringify({
    event: payload.event,
    transactionId: payload.transactionId,
    status: payload.status,
    amount: payload.amount,
    currency: payload.currency,
    customerEmail: payload.customerEmail,
    processorPaymentId: payload.processorPaymentId,
    metadata: payload.metadata,
    completedAt: payload.completedAt,
    timestamp: delivery.sent_timestamp,
  });
  const secrets = [delivery.webhook_secret];
  if (
    delivery.previous_webhook_secret &&
    (delivery.previous_webhook_secret_expires_at?.getTime() ?? 0) > now.getTime()
  ) {
    secrets.push(delivery.previous_webhook_secret);
  }
  const timestampSeconds = Math.floor(now.getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-service-event": delivery.event,
    "x-service-transaction": delivery.payment_id,
    "x-service-timestamp": delivery.sent_timestamp,
    "webhook-id": delivery.id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signWebhook(secrets, delivery.id, timestampSeconds, body),
  };
  return { headers, body };
}

/**
 * Sends queued webhooks. Any number of dispatchers may share one database: a delivery is claimed
 * with FOR UPDATE SKIP LOCKED and leased until its attempt is recorded, so no attempt is sent
 * twice, and a lease left by a crashed instance expires and is taken over.
 */
export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly inFlightByDestination = new Map<string, number>();
  private readonly active = new Set<Promise<void>>();
  private readonly recording = new Set<Promise<void>>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private claiming = false;
  private wakeRequested = false;
  private wakeScheduled = false;
  private pendingResults: PendingResult[] = [];
  private flushScheduled = false;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly perDestinationLimit: number;

  constructor(
    private readonly services: Services,
    private readonly log: FastifyBaseLogger,
    private readonly metrics: Metrics | undefined,
    private readonly options: DispatcherOptions = {},
  ) {
    const { config } = services;
    this.sender = new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      allowedPrivateHosts: config.allowedPrivateHosts,
      ...(options.resolver && { resolver: options.resolver }),
    });
    this.perDestinationLimit =
      options.perDestinationLimit ?? Math.max(1, Math.ceil(config.webhookConcurrency / 4));
  }

  async start(): Promise<void> {
    this.services.outbox.on("wake", this.wake);
    this.unlisten = await this.services.db.listen(OUTBOX_CHANNEL, this.wake);
    this.pollTimer = setInterval(this.wake, this.options.pollIntervalMs ?? 1000);
    this.pollTimer.unref();
    this.wake();
  }

  /** Wake-ups in one tick (many finished attempts, a burst of NOTIFYs) make one claim. */
  readonly wake = (): void => {
    if (this.stopped) return;
    if (this.claiming) {
      this.wakeRequested = true;
      return;
    }
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      if (!this.claiming && !this.stopped) void this.claimAndSend();
      else this.wakeRequested = true;
    });
  };

  private async claimAndSend(): Promise<void> {
    this.claiming = true;
    try {
      do {
        this.wakeRequested = false;
        const free = this.services.config.webhookConcurrency - this.active.size;
        if (free <= 0) break;
        const claimed = await this.claim(free);
        for (const delivery of claimed) this.launch(delivery);
        // A full batch suggests more are due.
        if (claimed.length === free) this.wakeRequested = true;
      } while (this.wakeRequested && !this.stopped);
    } catch (error) {
      this.log.warn({ err: error }, "webhook claim failed; retrying on the next poll");
    } finally {
      this.claiming = false;
    }
  }

  /**
   * One statement: lock due rows (skipping rows another dispatcher holds), keep at most
   * perDestinationLimit in flight per receiver, and lease the chosen ones. The row locks end with
   * the statement; the lease (locked_until) keeps others away until the attempt is recorded.
   */
  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    const busy = [...this.inFlightByDestination];
    const saturated = busy
      .filter(([, count]) => count >= this.perDestinationLimit)
      .map(([destination]) => destination);
    const leaseMs = this.services.config.webhookTimeoutMs + 30_000;
    return this.services.db.query<ClaimedDelivery>(
      `WITH locked AS (
         SELECT id, destination, next_attempt_at FROM webhook_deliveries
         WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
           AND NOT (destination = ANY($2::text[]))
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ), ranked AS (
         SELECT locked.id,
           row_number() OVER (PARTITION BY locked.destination ORDER BY locked.next_attempt_at) + COALESCE(busy.in_flight, 0) AS slot
         FROM locked LEFT JOIN unnest($3::text[], $4::int[]) AS busy(destination, in_flight) USING (destination)
       )
       UPDATE webhook_deliveries d SET
         locked_until = now() + make_interval(secs => $5::double precision / 1000),
         attempts = d.attempts + 1,
         sent_timestamp = COALESCE(d.sent_timestamp, $6)
       FROM ranked, webhook_events e JOIN groups g ON g.id = e.group_id
       WHERE d.id = ranked.id AND ranked.slot <= $7 AND e.id = d.event_id
       RETURNING d.id, d.url, d.destination, d.attempts, d.sent_timestamp, d.created_at, e.event, e.payment_id,
         e.payload, g.webhook_secret, g.previous_webhook_secret, g.previous_webhook_secret_expires_at`,
      [
        limit,
        saturated,
        busy.map(([destination]) => destination),
        busy.map(([, count]) => count),
        leaseMs,
        new Date().toISOString(),
        this.perDestinationLimit,
      ],
    );
  }

  private launch(delivery: ClaimedDelivery): void {
    const { destination } = delivery;
    this.inFlightByDestination.set(destination, (this.inFlightByDestination.get(destination) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error) => this.log.error({ err: error, deliveryId: delivery.id }, "webhook attempt crashed"))
      .finally(() => {
        const remaining = (this.inFlightByDestination.get(destination) ?? 1) - 1;
        if (remaining > 0) this.inFlightByDestination.set(destination, remaining);
        else this.inFlightByDestination.delete(destination);
        this.active.delete(attempt);
        this.wake();
      });
    this.active.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    if (delivery.attempts === 1) {
      this.metrics?.webhookFirstAttemptDelaySeconds.observe(
        (Date.now() - delivery.created_at.getTime()) / 1000,
      );
    }
    const attemptedAt = new Date();
    const { headers, body } = buildRequest(delivery, attemptedAt);
    const result = await this.sender.send(delivery.url, headers, body);
    const delays = this.services.config.webhookRetryDelaysMs;
    const retryDelay = result.outcome === "retry" ? delays[delivery.attempts - 1] : undefined;
    const state =
      result.outcome === "delivered" ? "succeeded" : retryDelay === undefined ? "failed" : "pending";
    // The slot is freed as soon as the exchange ends: the lease keeps the row from other
    // dispatchers until this outcome is written, in a batch with others finishing now.
    const recorded = this.record({
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      attemptedAt,
      result,
      state,
      retryDelayMs: retryDelay ?? 0,
    }).then(() => this.afterRecorded(delivery, result, state, retryDelay));
    this.recording.add(recorded);
    void recorded
      .catch((error) =>
        this.log.warn(
          { err: error, deliveryId: delivery.id },
          "webhook attempt not recorded; its lease will expire",
        ),
      )
      .finally(() => this.recording.delete(recorded));
  }

  private afterRecorded(
    delivery: ClaimedDelivery,
    result: AttemptResult,
    state: PendingResult["state"],
    retryDelay: number | undefined,
  ) {
    const outcome = state === "failed" && result.outcome === "retry" ? "dropped" : result.outcome;
    this.metrics?.webhookDeliveries.inc({ outcome });
    this.metrics?.webhookAttemptSeconds.observe({ outcome }, result.durationMs / 1000);
    if (state === "pending") {
      // Each wait starts when the previous attempt fails (spec §6.3 rule 3).
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        this.wake();
      }, retryDelay);
      timer.unref();
      this.retryTimers.add(timer);
    } else if (state === "failed") {
      this.log.warn(
        {
          deliveryId: delivery.id,
          attempts: delivery.attempts,
          statusCode: result.statusCode,
          error: result.error,
        },
        "webhook delivery dropped",
      );
    }
  }

  /** Queues an attempt's outcome; outcomes finishing together are written in one statement. */
  private record(result: Omit<PendingResult, "done">): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pendingResults.push({ ...result, done: { resolve, reject } });
      if (this.pendingResults.length >= 100) void this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pendingResults;
    this.pendingResults = [];
    if (batch.length === 0) return;
    try {
      await this.services.db.query(
        `WITH results AS (
           SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[], $8::double precision[])
             AS r(id, attempt, attempted_at, status_code, error, duration_ms, state, retry_ms)
         ), attempt AS (
           INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
           SELECT id, attempt, attempted_at, status_code, error, duration_ms FROM results
         )
         UPDATE webhook_deliveries d SET
           state = r.state,
           locked_until = NULL,
           next_attempt_at = CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.retry_ms / 1000) ELSE d.next_attempt_at END,
           completed_at = CASE WHEN r.state = 'pending' THEN NULL ELSE now() END,
           last_status_code = r.status_code,
           last_error = r.error
         FROM results r WHERE d.id = r.id`,
        [
          batch.map((entry) => entry.deliveryId),
          batch.map((entry) => entry.attempt),
          batch.map((entry) => entry.attemptedAt),
          batch.map((entry) => entry.result.statusCode),
          batch.map((entry) => entry.result.error),
          batch.map((entry) => entry.result.durationMs),
          batch.map((entry) => entry.state),
          batch.map((entry) => entry.retryDelayMs),
        ],
      );
      for (const entry of batch) entry.done.resolve();
    } catch (error) {
      // Unrecorded attempts keep their lease; when it runs out they are claimed and sent again.
      for (const entry of batch) entry.done.reject(error);
    }
  }

  /** Stops claiming, lets attempts in flight finish (each bounded by the timeout), and closes sockets. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.services.outbox.off("wake", this.wake);
    clearInterval(this.pollTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    await this.unlisten?.();
    await Promise.allSettled([...this.active]);
    await this.flush();
    await Promise.allSettled([...this.recording]);
    await this.sender.close();
  }
}
