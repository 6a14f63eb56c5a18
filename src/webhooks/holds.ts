import { MIN_HOLD_LOADS, type Pace } from "./pace.ts";
import type { ClaimedDelivery } from "./sql/queue.ts";

/** A claimed delivery waiting for a slot, with when (this process's clock) its claim was asked. */
export interface WaitingDelivery {
  delivery: ClaimedDelivery;
  claimAskedAt: number;
}

/**
 * What a dispatcher holds, per receiver: its attempts in flight and its claimed deliveries waiting
 * for a slot, in claim order. A receiver is listed while it holds anything, so claims count its
 * waiting ones too.
 */
export class HeldDeliveries {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, WaitingDelivery[]>();
  /** Every delivery held, in flight or waiting. */
  total = 0;

  constructor(
    private readonly pace: Pace,
    /** At most this many attempts in flight to one receiver. */
    private readonly perDestinationLimit: number,
    /** At most this many in flight in all. */
    private readonly concurrency: number,
  ) {}

  /** The receivers holding anything. */
  destinations(): string[] {
    return [...this.inFlight.keys()];
  }

  /** In flight and waiting. */
  heldBy(destination: string): number {
    return (this.inFlight.get(destination) ?? 0) + (this.waiting.get(destination)?.length ?? 0);
  }

  /** The most a receiver may hold. */
  limitOf(destination: string): number {
    return this.pace.holdLoads(destination) * this.perDestinationLimit;
  }

  /** The most a receiver not yet timed may hold. */
  get leastLimit(): number {
    return MIN_HOLD_LOADS * this.perDestinationLimit;
  }

  /**
   * Deliveries all receivers together may hold: the least hold for every slot, as many as can be
   * sent inside their lease however slow the receivers, plus what fast receivers hold beyond it.
   */
  budget(): number {
    let budget = MIN_HOLD_LOADS * this.concurrency;
    for (const destination of this.inFlight.keys()) {
      budget += (this.pace.holdLoads(destination) - MIN_HOLD_LOADS) * this.perDestinationLimit;
    }
    return budget;
  }

  /**
   * A receiver is refilled once it is down to half its hold, and until then its due rows are left
   * out of claims: a slow receiver's backlog, older than everyone else's deliveries, would
   * otherwise fill every claim's scan.
   */
  wantsRefill(destination: string): boolean {
    return this.heldBy(destination) <= (this.pace.holdLoads(destination) / 2) * this.perDestinationLimit;
  }

  hold(entry: WaitingDelivery): void {
    const { destination } = entry.delivery;
    const queue = this.waiting.get(destination);
    if (queue) queue.push(entry);
    else this.waiting.set(destination, [entry]);
    if (!this.inFlight.has(destination)) this.inFlight.set(destination, 0);
    this.total += 1;
  }

  /**
   * Hands `start` each waiting delivery that may start now, while its receiver and the dispatcher
   * (`inFlightTotal`) have free slots; `start` launches it (`launched`) or gives it back (`released`).
   */
  startWaiting(inFlightTotal: () => number, start: (entry: WaitingDelivery) => void): void {
    for (const [destination, queue] of this.waiting) {
      while (
        queue.length > 0 &&
        inFlightTotal() < this.concurrency &&
        (this.inFlight.get(destination) ?? 0) < this.perDestinationLimit
      ) {
        start(queue.shift() as WaitingDelivery);
      }
      if (queue.length > 0) continue;
      this.waiting.delete(destination);
      if (this.inFlight.get(destination) === 0) this.inFlight.delete(destination);
    }
  }

  launched(destination: string): void {
    this.inFlight.set(destination, (this.inFlight.get(destination) ?? 0) + 1);
  }

  /** An attempt ended: its slot is free, and the delivery no longer held. */
  finished(destination: string): void {
    const remaining = (this.inFlight.get(destination) ?? 1) - 1;
    if (remaining > 0 || this.waiting.has(destination)) this.inFlight.set(destination, remaining);
    else this.inFlight.delete(destination);
    this.total -= 1;
  }

  /** A waiting delivery given back unsent. */
  released(): void {
    this.total -= 1;
  }

  /** Every delivery still waiting, no longer held (the dispatcher stops). */
  takeAllWaiting(): ClaimedDelivery[] {
    const unsent = [...this.waiting.values()].flat().map((entry) => entry.delivery);
    this.waiting.clear();
    this.total -= unsent.length;
    return unsent;
  }
}
