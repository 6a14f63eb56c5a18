// How fast each receiver answers and a claim returns, as running averages: how many deliveries a
// receiver may hold so that its slots never wait for a claim.

/**
 * Deliveries held per receiver (in flight and waiting), in slot-loads (its in-flight limit): the
 * least, for a receiver not yet timed or a slow one, whose waiting deliveries must be sent before
 * their lease runs out…
 */
export const MIN_HOLD_LOADS = 4;
/** …and the most, for one that answers in a fraction of a claim's round trip. */
const MAX_HOLD_LOADS = 16;

/** Receivers whose attempt durations are kept; past it the record starts again. */
const TIMED_RECEIVERS = 10_000;

/** Weight of the latest figure in the running averages of attempt and claim durations. */
const SMOOTHING = 0.2;

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

/** The running averages of one dispatcher. */
export class Pace {
  /** Each receiver's attempt durations, in ms. */
  private readonly attemptMs = new Map<string, number>();
  /** A claim's round trip, in ms. */
  claimMs = 0;

  timeClaim(durationMs: number): void {
    this.claimMs = smoothed(this.claimMs, durationMs);
  }

  timeAttempt(destination: string, durationMs: number): void {
    const average = this.attemptMs.get(destination);
    if (average === undefined && this.attemptMs.size >= TIMED_RECEIVERS) this.attemptMs.clear();
    this.attemptMs.set(destination, average === undefined ? durationMs : smoothed(average, durationMs));
  }

  holdLoads(destination: string): number {
    return holdLoads(this.claimMs, this.attemptMs.get(destination));
  }
}
