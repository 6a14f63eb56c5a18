import type { ProcessorName } from "../../processor/port.ts";

export interface BreakerSettings {
  /** Unknown outcomes in a row that open a processor's breaker. */
  failures: number;
  /** How long an open breaker skips its processor before one create tries it again. */
  openMs: number;
}

type Breaker =
  | { mode: "closed"; unknownInARow: number }
  | { mode: "open"; until: number }
  /** The window passed: one create is trying the processor; the others still skip it. */
  | { mode: "trial" };

/**
 * Each processor's breaker, in this instance: creates whose outcome stayed unknown
 * after the adapter's own retries open it; while open the processor is skipped; after the window
 * one create tries it again, and its answer closes or reopens it.
 */
export class ProcessorBreakers {
  private readonly breakers = new Map<ProcessorName, Breaker>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private of(name: ProcessorName): Breaker {
    return this.breakers.get(name) ?? { mode: "closed", unknownInARow: 0 };
  }

  /** Whether a create may try the processor now; taking the one trial of a breaker whose window passed. */
  admit(name: ProcessorName): boolean {
    const breaker = this.of(name);
    if (breaker.mode === "closed") return true;
    if (breaker.mode === "trial" || breaker.until > this.now()) return false;
    this.breakers.set(name, { mode: "trial" });
    return true;
  }

  /** The processor answered (a checkout, or a definite refusal): it is up. */
  answered(name: ProcessorName): void {
    this.breakers.set(name, { mode: "closed", unknownInARow: 0 });
  }

  /** A create's outcome stayed unknown. */
  unknown(name: ProcessorName): void {
    const breaker = this.of(name);
    const inARow = breaker.mode === "closed" ? breaker.unknownInARow + 1 : this.settings.failures;
    this.breakers.set(
      name,
      inARow >= this.settings.failures
        ? { mode: "open", until: this.now() + this.settings.openMs }
        : { mode: "closed", unknownInARow: inARow },
    );
  }

  /** For /health: `skipped` while creates skip the processor, `ok` once its window has passed. */
  status(name: ProcessorName): "ok" | "skipped" {
    const breaker = this.of(name);
    return breaker.mode === "open" && breaker.until > this.now() ? "skipped" : "ok";
  }
}
