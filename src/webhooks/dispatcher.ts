import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Database } from "../db/database.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { WebhookOutbox } from "./outbox.ts";
import { buildRequest } from "./request.ts";
import type { Resolver } from "./safe-connect.ts";
import { type AttemptResult, WebhookSender } from "./sender.ts";
import { OUTBOX_CHANNEL } from "./sql/outbox.ts";
import {
  type AttemptRecord,
  anyDueDeliveries,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempts,
  releaseUnsentClaims,
} from "./sql/queue.ts";

/** Distinct sealed secrets kept open in memory: one or two per active group. */
const REVEALED_CACHE_SIZE = 1000;

/**
 * Deliveries held per receiver (in flight and waiting), in slot-loads (its in-flight limit): the
 * least, for a receiver not yet timed or a slow one, whose waiting deliveries must be sent before
 * their lease runs out…
 */
const MIN_HOLD_LOADS = 4;
/** …and the most, for one that answers in a fraction of a claim's round trip. */
const MAX_HOLD_LOADS = 16;

/** Receivers whose attempt durations are kept; past it the record starts again. */
const TIMED_RECEIVERS = 10_000;

/** Weight of the latest figure in the running averages of attempt and claim durations. */
const SMOOTHING = 0.2;

/** The least wait before claiming again after losing rows to another dispatcher's claim. */
const MIN_CONTENTION_DELAY_MS = 2;

/** Past the timeout, the least lease a waiting delivery must have left to be sent rather than given back. */
const LEASE_MARGIN_MS = 5_000;

/** A claimed delivery waiting for a slot, with when (this process's clock) its claim was asked. */
interface WaitingDelivery {
  delivery: ClaimedDelivery;
  claimAskedAt: number;
}

type PendingResult = AttemptRecord & { done: { resolve: () => void; reject: (error: unknown) => void } };

export type DispatcherConfig = Pick<
  Config,
  "webhookTimeoutMs" | "webhookRetryDelaysMs" | "webhookConcurrency" | "allowedPrivateHosts"
>;

export interface DispatcherOptions {
  db: Database;
  outbox: WebhookOutbox;
  config: DispatcherConfig;
  log: FastifyBaseLogger;
  metrics?: Metrics | undefined;
  resolver?: Resolver | undefined;
  /** Opens the groups' sealed signing secrets. */
  box: SecretBox;
  /** Fallback poll for retries that fell due and for wake-ups that got lost. */
  pollIntervalMs?: number;
  /** At most this many attempts in flight to one receiver host, so a slow one cannot starve others. */
  perDestinationLimit?: number;
}

/**
 * Sends queued webhooks. Any number of dispatchers may share one database: a delivery is claimed
 * with row locks that skip rows others hold (SKIP LOCKED) and leased until its attempt is recorded, so no attempt is sent
 * twice, and a lease left by a crashed instance expires and is taken over.
 *
 * Claims run ahead of the free slots: each receiver may have several times its in-flight limit
 * claimed and waiting, so a finished attempt starts the next at once instead of after a claim's
 * round trip, and one claim serves many slots. A delivery that waited so long that its lease could
 * run out during its attempt is given back instead of sent.
 */
export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly inFlightByDestination = new Map<string, number>();
  /** Claimed deliveries waiting for a slot, in claim order, per receiver. */
  private readonly waiting = new Map<string, WaitingDelivery[]>();
  private heldTotal = 0;
  private readonly active = new Set<Promise<void>>();
  private readonly recording = new Set<Promise<void>>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private claiming: Promise<void> | undefined;
  private wakeRequested = false;
  /** A receiver fell to its refill mark while a claim was running. */
  private refillRequested = false;
  private wakeScheduled = false;
  private pendingResults: PendingResult[] = [];
  private flushScheduled = false;
  private flushing: Promise<void> | undefined;
  private stopped = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly pollIntervalMs: number;
  private contentionTimer: NodeJS.Timeout | undefined;
  /** The last wait before claiming again after a lost race; 0 once a claim gets rows or none are due. */
  private contentionDelayMs = 0;
  private stopWakeListener: (() => void) | undefined;
  private readonly perDestinationLimit: number;
  private readonly revealed = new Map<string, string>();
  /** Running average of each receiver's attempt durations, in ms. */
  private readonly attemptMs = new Map<string, number>();
  /** Running average of a claim's round trip, in ms. */
  private claimMs = 0;
  private readonly config: DispatcherConfig;
  private readonly log: FastifyBaseLogger;
  private readonly metrics: Metrics | undefined;

  constructor(private readonly options: DispatcherOptions) {
    const { config } = options;
    this.config = config;
    this.log = options.log;
    this.metrics = options.metrics;
    this.sender = new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      allowedPrivateHosts: config.allowedPrivateHosts,
      ...(options.resolver && { resolver: options.resolver }),
    });
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.perDestinationLimit =
      options.perDestinationLimit ?? Math.max(1, Math.ceil(config.webhookConcurrency / 4));
  }

  async start(): Promise<void> {
    this.stopWakeListener = this.options.outbox.onWake(this.wake);
    this.unlisten = await this.options.db.listen(OUTBOX_CHANNEL, this.wake);
    this.pollTimer = setInterval(this.wake, this.pollIntervalMs);
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
      if (this.claiming || this.stopped) {
        this.wakeRequested = true;
        return;
      }
      const run: Promise<void> = this.claimAndSend().finally(() => {
        this.claiming = undefined;
        // A wake-up that came as the last claim ended.
        if (this.claimAgain()) this.wake();
      });
      this.claiming = run;
    });
  };

  private async claimAndSend(): Promise<void> {
    try {
      do {
        this.wakeRequested = false;
        this.refillRequested = false;
        const free = this.holdBudget() - this.heldTotal;
        if (free <= 0) break;
        const claimAskedAt = performance.now();
        const claimed = await this.claim(free);
        this.claimMs = smoothed(this.claimMs, performance.now() - claimAskedAt);
        if (this.stopped) {
          await releaseUnsentClaims(this.options.db, claimed);
          break;
        }
        for (const delivery of claimed) this.hold({ delivery, claimAskedAt });
        this.startWaiting();
        // Held deliveries ask for a refill as they finish; a dispatcher holding none hears nothing
        // until a NOTIFY or its poll, even when it found nothing only because another was claiming.
        if (this.heldTotal === 0 && (await anyDueDeliveries(this.options.db))) this.claimAfterContention();
        else this.contentionDelayMs = 0;
        // A full batch suggests more are due.
        if (claimed.length === free) this.wakeRequested = true;
      } while (this.claimAgain() && !this.stopped);
    } catch (error) {
      this.log.warn({ err: error }, "webhook claim failed; retrying on the next poll");
    }
  }

  /**
   * Whether a wake-up came during the last claim. A receiver that asked for a refill meanwhile
   * counts only if it still wants one: the claim may have refilled it, and a second claim would
   * then scan the due rows of every receiver it leaves out, for nothing.
   */
  private claimAgain(): boolean {
    if (this.wakeRequested) return true;
    if (!this.refillRequested) return false;
    for (const destination of this.inFlightByDestination.keys()) {
      if (this.wantsRefill(destination)) return true;
    }
    return false;
  }

  /**
   * Another dispatcher was leasing the rows this claim chose, and this one holds none. The other's
   * statement may still be running, so an immediate claim would choose and lose the same rows; one
   * after about a claim's time finds them leased and reads past them. The wait doubles while claims
   * keep losing (rows held by a long transaction), up to the poll interval, so a lost race costs
   * milliseconds instead of a poll.
   */
  private claimAfterContention(): void {
    if (this.contentionTimer || this.stopped) return;
    this.contentionDelayMs = Math.min(
      this.pollIntervalMs,
      this.contentionDelayMs === 0
        ? Math.max(MIN_CONTENTION_DELAY_MS, this.claimMs)
        : 2 * this.contentionDelayMs,
    );
    this.contentionTimer = setTimeout(() => {
      this.contentionTimer = undefined;
      this.wake();
    }, this.contentionDelayMs);
    this.contentionTimer.unref();
  }

  /** A finished attempt left its receiver at its refill mark. */
  private askRefill(): void {
    if (this.claiming) this.refillRequested = true;
    else this.wake();
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    const destinations = [...this.inFlightByDestination.keys()];
    return claimDueDeliveries(this.options.db, {
      limit,
      saturated: destinations.filter((destination) => !this.wantsRefill(destination)),
      held: destinations.map((destination) => ({
        destination,
        count: this.heldBy(destination),
        limit: this.holdLoads(destination) * this.perDestinationLimit,
      })),
      holdLimit: MIN_HOLD_LOADS * this.perDestinationLimit,
      leaseMs: this.leaseMs,
      sentTimestamp: new Date().toISOString(),
    });
  }

  /**
   * Deliveries all receivers together may hold: the least hold for every slot, as many as can be
   * sent inside their lease however slow the receivers, plus what fast receivers hold beyond it.
   */
  private holdBudget(): number {
    let budget = MIN_HOLD_LOADS * this.config.webhookConcurrency;
    for (const destination of this.inFlightByDestination.keys()) {
      budget += (this.holdLoads(destination) - MIN_HOLD_LOADS) * this.perDestinationLimit;
    }
    return budget;
  }

  /** In flight and waiting. */
  private heldBy(destination: string): number {
    return (this.inFlightByDestination.get(destination) ?? 0) + (this.waiting.get(destination)?.length ?? 0);
  }

  /**
   * A receiver is refilled once it is down to half its hold, and until then its due rows are left
   * out of claims: a slow receiver's backlog, older than everyone else's deliveries, would
   * otherwise fill every claim's scan.
   */
  private wantsRefill(destination: string): boolean {
    return this.heldBy(destination) <= (this.holdLoads(destination) / 2) * this.perDestinationLimit;
  }

  private holdLoads(destination: string): number {
    return holdLoads(this.claimMs, this.attemptMs.get(destination));
  }

  private timeAttempt(destination: string, durationMs: number): void {
    const average = this.attemptMs.get(destination);
    if (average === undefined && this.attemptMs.size >= TIMED_RECEIVERS) this.attemptMs.clear();
    this.attemptMs.set(destination, average === undefined ? durationMs : smoothed(average, durationMs));
  }

  private get leaseMs(): number {
    return this.config.webhookTimeoutMs + 30_000;
  }

  private hold(entry: WaitingDelivery): void {
    const { destination } = entry.delivery;
    const queue = this.waiting.get(destination);
    if (queue) queue.push(entry);
    else this.waiting.set(destination, [entry]);
    // A receiver appears in the in-flight map while it holds anything, so claims count its waiting ones.
    if (!this.inFlightByDestination.has(destination)) this.inFlightByDestination.set(destination, 0);
    this.heldTotal += 1;
  }

  /** Starts waiting deliveries while their receiver and the dispatcher have free slots. */
  private startWaiting(): void {
    for (const [destination, queue] of this.waiting) {
      while (
        queue.length > 0 &&
        this.active.size < this.config.webhookConcurrency &&
        (this.inFlightByDestination.get(destination) ?? 0) < this.perDestinationLimit
      ) {
        const { delivery, claimAskedAt } = queue.shift() as WaitingDelivery;
        // The database set the lease after the claim was asked, so it lasts at least this long.
        const leaseLeft = claimAskedAt + this.leaseMs - performance.now();
        if (leaseLeft >= this.config.webhookTimeoutMs + LEASE_MARGIN_MS) this.launch(delivery);
        else this.giveBack(delivery);
      }
      if (queue.length > 0) continue;
      this.waiting.delete(destination);
      if (this.inFlightByDestination.get(destination) === 0) this.inFlightByDestination.delete(destination);
    }
  }

  private giveBack(delivery: ClaimedDelivery): void {
    this.heldTotal -= 1;
    const released = releaseUnsentClaims(this.options.db, [delivery])
      .catch((error) =>
        this.log.warn(
          { err: error, deliveryId: delivery.id },
          "webhook claim not given back; its lease will expire",
        ),
      )
      .finally(() => {
        this.recording.delete(released);
        this.wake();
      });
    this.recording.add(released);
  }

  private launch(delivery: ClaimedDelivery): void {
    const { destination } = delivery;
    this.inFlightByDestination.set(destination, (this.inFlightByDestination.get(destination) ?? 0) + 1);
    const attempt = this.attempt(delivery)
      .catch((error) => this.log.error({ err: error, deliveryId: delivery.id }, "webhook attempt crashed"))
      .finally(() => {
        const remaining = (this.inFlightByDestination.get(destination) ?? 1) - 1;
        if (remaining > 0 || this.waiting.has(destination))
          this.inFlightByDestination.set(destination, remaining);
        else this.inFlightByDestination.delete(destination);
        this.heldTotal -= 1;
        this.active.delete(attempt);
        if (!this.stopped) this.startWaiting();
        // Refilled in batches: a claim per finished attempt would be a statement per delivery.
        // New deliveries wake the dispatcher themselves (NOTIFY), retries by their timers.
        if (this.wantsRefill(destination)) this.askRefill();
      });
    this.active.add(attempt);
  }

  /**
   * A group's secret, opened once rather than once per delivery. Keyed by the sealed text, which a
   * rotation or a reseal changes, so a cached value is never stale; bounded by a reset when full.
   */
  private reveal(stored: string): string {
    let plain = this.revealed.get(stored);
    if (plain === undefined) {
      if (this.revealed.size >= REVEALED_CACHE_SIZE) this.revealed.clear();
      plain = this.options.box.reveal(stored);
      this.revealed.set(stored, plain);
    }
    return plain;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    if (delivery.attempts === 1) {
      this.metrics?.webhookFirstAttemptDelaySeconds.observe(
        (Date.now() - delivery.created_at.getTime()) / 1000,
      );
    }
    const attemptedAt = new Date();
    const { headers, body } = buildRequest(
      {
        ...delivery,
        webhook_secret: this.reveal(delivery.webhook_secret),
        previous_webhook_secrets: delivery.previous_webhook_secrets.map((earlier) => ({
          ...earlier,
          secret: this.reveal(earlier.secret),
        })),
      },
      attemptedAt,
    );
    const result = await this.sender.send(delivery.url, headers, body);
    this.timeAttempt(delivery.destination, result.durationMs);
    if (result.detail) {
      this.log.warn({ deliveryId: delivery.id, reason: result.detail }, "webhook destination refused");
    }
    const delays = this.config.webhookRetryDelaysMs;
    const retryDelay = result.outcome === "retry" ? delays[delivery.attempts - 1] : undefined;
    const state =
      result.outcome === "delivered" ? "succeeded" : retryDelay === undefined ? "failed" : "pending";
    // The slot is freed as soon as the exchange ends: the lease keeps the row from other
    // dispatchers until this outcome is written, in a batch with others finishing now.
    const recorded = this.record({
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      attemptedAt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      answer: result.answer,
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
      // Each wait starts when the previous attempt fails (docs/api.md, "Webhooks").
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

  /**
   * Queues an attempt's outcome. One write is in flight at a time and the outcomes that finish
   * meanwhile go in the next, so a busy dispatcher makes few large writes rather than many small
   * ones that contend with its claims.
   */
  private record(result: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pendingResults.push({ ...result, done: { resolve, reject } });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.pendingResults.length > 0) this.scheduleFlush();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pendingResults;
    this.pendingResults = [];
    if (batch.length === 0) return;
    try {
      await recordAttempts(this.options.db, batch);
      for (const entry of batch) entry.done.resolve();
    } catch (error) {
      // Unrecorded attempts keep their lease; when it runs out they are claimed and sent again.
      for (const entry of batch) entry.done.reject(error);
    }
  }

  /**
   * Stops claiming, gives back claims not yet started, lets attempts in flight finish (each bounded
   * by the timeout), and closes sockets.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWakeListener?.();
    clearInterval(this.pollTimer);
    clearTimeout(this.contentionTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    await this.unlisten?.();
    await this.claiming;
    const unsent = [...this.waiting.values()].flat().map((entry) => entry.delivery);
    this.waiting.clear();
    this.heldTotal -= unsent.length;
    await releaseUnsentClaims(this.options.db, unsent).catch((error) =>
      this.log.warn({ err: error }, "unsent webhook claims not released; their leases will expire"),
    );
    await Promise.allSettled([...this.active]);
    await this.flushing;
    await this.flush();
    await Promise.allSettled([...this.recording]);
    await this.sender.close();
  }
}

const smoothed = (average: number, latest: number): number => average + SMOOTHING * (latest - average);

/**
 * How many slot-loads a receiver may hold, refilled at half: enough waiting, when its refill is
 * asked, to keep its slots busy until the claim answers. A slot-load lasts about one attempt, so a
 * receiver that answers in 1 ms while a claim takes 8 ms must have eight loads waiting; with the
 * least hold it would run dry and wait for every claim. Untimed receivers get the least.
 */
export function holdLoads(claimMs: number, attemptMs: number | undefined): number {
  if (attemptMs === undefined) return MIN_HOLD_LOADS;
  const loadsPerClaim = Math.ceil(claimMs / Math.max(attemptMs, 0.5));
  return Math.min(MAX_HOLD_LOADS, Math.max(MIN_HOLD_LOADS, 2 * (loadsPerClaim + 1)));
}
