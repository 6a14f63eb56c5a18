import { DomainError } from "../errors/domain-error.ts";

const WINDOW_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Failed authentications per client address per minute, in this process. The check and the count
 * run synchronously around a synchronous comparison, so concurrent requests cannot slip past it.
 */
export class FailureBudget {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly message: string,
  ) {}

  /** Too many failures from this address: 429, before any secret is compared. */
  check(address: string): void {
    const entry = this.failures.get(address);
    if (!entry || Date.now() - entry.since > WINDOW_MS) return;
    if (entry.count >= this.perMinute) throw new DomainError("RATE_LIMIT_EXCEEDED", this.message);
  }

  record(address: string): void {
    const now = Date.now();
    const entry = this.failures.get(address);
    if (!entry || now - entry.since > WINDOW_MS) {
      if (this.failures.size >= MAX_ENTRIES)
        this.failures.delete(this.failures.keys().next().value as string);
      this.failures.set(address, { count: 1, since: now });
    } else {
      entry.count += 1;
    }
  }
}
