import type { Config } from "../config/config.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Database } from "../platform/db/database.ts";
import type { Metrics } from "../platform/metrics/metrics.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { AttemptRunner } from "./attempt.ts";
import { HeldDeliveries, type WaitingDelivery } from "./holds.ts";
import { OpenedSecrets } from "./opened-secrets.ts";
import type { WebhookOutbox } from "./outbox.ts";
import { OutcomeWriter } from "./outcome-writer.ts";
import { Pace } from "./pace.ts";
import type { Resolver } from "./safe-connect.ts";
import { WebhookSender } from "./sender.ts";
import { OUTBOX_CHANNEL } from "./sql/outbox.ts";
import {
  anyDueDeliveries,
  type ClaimedDelivery,
  claimDueDeliveries,
  releaseUnsentClaims,
} from "./sql/queue.ts";

/** The least wait before claiming again after losing rows to another dispatcher's claim. */
const MIN_CONTENTION_DELAY_MS = 2;

/** Past the timeout, the least lease a waiting delivery must have left to be sent rather than given back. */
const LEASE_MARGIN_MS = 5_000;

/** What came while a claim ran, and so whether another follows it at once. */
type ClaimAgain =
  /** Nothing: the next claim waits for a wake-up. */
  | "no"
  /** A wake-up (a NOTIFY, the poll, a retry's timer, a full batch): claim again. */
  | "wake"
  /** A receiver fell to its refill mark: claim again if one still wants it when this claim ends. */
  | "refill";

/**
 * The claim loop's one state. Wake-ups in one tick make one claim (`scheduled`); a wake-up during a
 * claim is noted on it (`again`) and answered when it ends; `stopped` takes no more.
 */
type ClaimMode =
  | { kind: "idle" }
  | { kind: "scheduled" }
  | { kind: "claiming"; run: Promise<void>; again: ClaimAgain }
  | { kind: "stopped" };

export type DispatcherConfig = Pick<
  Config,
  "webhookTimeoutMs" | "webhookRetryDelaysMs" | "webhookConcurrency" | "allowedPrivateHosts"
>;

export interface DispatcherOptions {
  db: Database;
  outbox: WebhookOutbox;
  config: DispatcherConfig;
  log: Logger;
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
  private readonly held: HeldDeliveries;
  private readonly active = new Set<Promise<void>>();
  private readonly recording = new Set<Promise<void>>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private claimMode: ClaimMode = { kind: "idle" };
  private pollTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly pollIntervalMs: number;
  private contentionTimer: NodeJS.Timeout | undefined;
  /** The last wait before claiming again after a lost race; 0 once a claim gets rows or none are due. */
  private contentionDelayMs = 0;
  private stopWakeListener: (() => void) | undefined;
  private readonly outcomes: OutcomeWriter;
  private readonly attempts: AttemptRunner;
  private readonly pace = new Pace();
  private readonly config: DispatcherConfig;
  private readonly log: Logger;
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
    this.outcomes = new OutcomeWriter(options.db);
    this.attempts = new AttemptRunner({
      sender: this.sender,
      secrets: new OpenedSecrets(options.box),
      pace: this.pace,
      outcomes: this.outcomes,
      config,
      log: this.log,
      metrics: this.metrics,
      retryIn: this.retryIn,
    });
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.held = new HeldDeliveries(
      this.pace,
      options.perDestinationLimit ?? Math.max(1, Math.ceil(config.webhookConcurrency / 4)),
      config.webhookConcurrency,
    );
  }

  async start(): Promise<void> {
    this.stopWakeListener = this.options.outbox.onWake(this.wake);
    this.unlisten = await this.options.db.listen(OUTBOX_CHANNEL, this.wake);
    this.pollTimer = setInterval(this.wake, this.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  private get stopped(): boolean {
    return this.claimMode.kind === "stopped";
  }

  /** Wake-ups in one tick (many finished attempts, a burst of NOTIFYs) make one claim. */
  readonly wake = (): void => {
    this.noteWhileClaiming("wake");
    if (this.claimMode.kind !== "idle") return;
    this.claimMode = { kind: "scheduled" };
    setImmediate(() => {
      if (this.claimMode.kind !== "scheduled") return;
      const run: Promise<void> = this.claimAndSend().finally(() => this.claimEnded());
      this.claimMode = { kind: "claiming", run, again: "no" };
    });
  };

  /** Notes on a running claim what came meanwhile; a wake-up outranks a refill. */
  private noteWhileClaiming(again: Exclude<ClaimAgain, "no">): void {
    if (this.claimMode.kind !== "claiming" || this.claimMode.again === "wake") return;
    this.claimMode.again = again;
  }

  /** A claim ended: idle, and at once again if a wake-up (or a refill still wanted) came meanwhile. */
  private claimEnded(): void {
    if (this.claimMode.kind !== "claiming") return;
    const again = this.claimAgain();
    this.claimMode = { kind: "idle" };
    if (again) this.wake();
  }

  private async claimAndSend(): Promise<void> {
    try {
      do {
        if (this.claimMode.kind === "claiming") this.claimMode.again = "no";
        const free = this.held.budget() - this.held.total;
        if (free <= 0) break;
        const claimAskedAt = performance.now();
        const claimed = await this.claim(free);
        this.pace.timeClaim(performance.now() - claimAskedAt);
        if (this.stopped) {
          await releaseUnsentClaims(this.options.db, claimed);
          break;
        }
        for (const delivery of claimed) this.held.hold({ delivery, claimAskedAt });
        this.startWaiting();
        // Held deliveries ask for a refill as they finish; a dispatcher holding none hears nothing
        // until a NOTIFY or its poll, even when it found nothing only because another was claiming.
        if (this.held.total === 0 && (await anyDueDeliveries(this.options.db))) this.claimAfterContention();
        else this.contentionDelayMs = 0;
        // A full batch suggests more are due.
        if (claimed.length === free) this.noteWhileClaiming("wake");
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
    if (this.claimMode.kind !== "claiming" || this.claimMode.again === "no") return false;
    if (this.claimMode.again === "wake") return true;
    for (const destination of this.held.destinations()) {
      if (this.held.wantsRefill(destination)) return true;
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
        ? Math.max(MIN_CONTENTION_DELAY_MS, this.pace.claimMs)
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
    if (this.claimMode.kind === "claiming") this.noteWhileClaiming("refill");
    else this.wake();
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    const destinations = this.held.destinations();
    return claimDueDeliveries(this.options.db, {
      limit,
      saturated: destinations.filter((destination) => !this.held.wantsRefill(destination)),
      held: destinations.map((destination) => ({
        destination,
        count: this.held.heldBy(destination),
        limit: this.held.limitOf(destination),
      })),
      holdLimit: this.held.leastLimit,
      leaseMs: this.leaseMs,
      sentTimestamp: new Date().toISOString(),
    });
  }

  private get leaseMs(): number {
    return this.config.webhookTimeoutMs + 30_000;
  }

  /** Starts waiting deliveries while their receiver and the dispatcher have free slots. */
  private startWaiting(): void {
    this.held.startWaiting(this.inFlightTotal, this.startOrGiveBack);
  }

  // Made once, not per call: every finished attempt starts the next through them.
  private readonly inFlightTotal = () => this.active.size;
  private readonly startOrGiveBack = ({ delivery, claimAskedAt }: WaitingDelivery): void => {
    // The database set the lease after the claim was asked, so it lasts at least this long.
    const leaseLeft = claimAskedAt + this.leaseMs - performance.now();
    if (leaseLeft >= this.config.webhookTimeoutMs + LEASE_MARGIN_MS) this.launch(delivery);
    else this.giveBack(delivery);
  };

  private giveBack(delivery: ClaimedDelivery): void {
    this.held.released();
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
    this.held.launched(destination);
    const attempt = this.attempt(delivery)
      .catch((error) => this.log.error({ err: error, deliveryId: delivery.id }, "webhook attempt crashed"))
      .finally(() => {
        this.held.finished(destination);
        this.active.delete(attempt);
        if (!this.stopped) this.startWaiting();
        // Refilled in batches: a claim per finished attempt would be a statement per delivery.
        // New deliveries wake the dispatcher themselves (NOTIFY), retries by their timers.
        if (this.held.wantsRefill(destination)) this.askRefill();
      });
    this.active.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { recorded } = await this.attempts.run(delivery);
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

  /** A failed attempt's delivery falls due again after `delayMs`: a claim then. */
  private readonly retryIn = (delayMs: number): void => {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, delayMs);
    timer.unref();
    this.retryTimers.add(timer);
  };

  /**
   * Stops claiming, gives back claims not yet started, lets attempts in flight finish (each bounded
   * by the timeout), and closes sockets.
   */
  async stop(): Promise<void> {
    const claiming = this.claimMode.kind === "claiming" ? this.claimMode.run : undefined;
    this.claimMode = { kind: "stopped" };
    this.stopWakeListener?.();
    clearInterval(this.pollTimer);
    clearTimeout(this.contentionTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    await this.unlisten?.();
    await claiming;
    const unsent = this.held.takeAllWaiting();
    await releaseUnsentClaims(this.options.db, unsent).catch((error) =>
      this.log.warn({ err: error }, "unsent webhook claims not released; their leases will expire"),
    );
    await Promise.allSettled([...this.active]);
    await this.outcomes.drain();
    await Promise.allSettled([...this.recording]);
    await this.sender.close();
  }
}
