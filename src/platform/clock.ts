// The service's one source of "now" for what the domain and the workers decide (a payment's
// expiry, when to ask a processor again, what retention reaches). Injected, so a test can move it;
// the database's now() only stamps when a record was written.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
