import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db/database.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import type { PaymentFact } from "../core/facts.ts";
import { openReconciliationItem } from "../core/store.ts";
import type { PaymentWriter } from "../core/writer.ts";
import { claimDueForExpiry, type DuePayment } from "./store.ts";

const EXPIRY_BATCH = 100;

/** Closes links that ran out. The processor is asked first, so a last-second payment succeeds. */
export class Expiry {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly writer: PaymentWriter,
    /** How long a claimed payment is left alone: also the wait before asking a silent processor again. */
    private readonly claimLeaseMs: number,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** One sweep; how many status changes it made. */
  async expireDue(): Promise<number> {
    let changed = 0;
    for (const payment of await claimDueForExpiry(
      this.db,
      EXPIRY_BATCH,
      this.claimLeaseMs,
      this.clock.now(),
    )) {
      changed += await this.expireOne(payment);
    }
    return changed;
  }

  /**
   * Expires one open payment now, ahead of its time, the way the sweep would: the sandbox's
   * `checkout trigger payment.expired`, the same for every processor.
   */
  expireNow(payment: DuePayment): Promise<number> {
    return this.expireOne(payment);
  }

  private async expireOne(payment: DuePayment): Promise<number> {
    let fact: PaymentFact = { kind: "expired" };
    let paymentRef: string | null = null;
    const checkoutId = payment.processor_checkout_id;
    if (checkoutId) {
      const adapter = this.processors.of(payment.processor);
      const answer = await callProcessor((signal) => adapter.expireCheckout(checkoutId, signal), {
        deadlineMs: LOOKUP_DEADLINE_MS,
      });
      if (answer.kind === "refused" && answer.missing) return this.expireMissing(payment);
      if (answer.kind !== "ok") {
        // Left processing, and claimed until the lease ends: asked again then, not every sweep.
        this.log.warn(
          { transactionId: payment.id, reason: answer.error.message, retryInMs: this.claimLeaseMs },
          "could not expire payment: the processor did not answer",
        );
        return 0;
      }
      if (answer.value.paid) fact = { kind: "paid" };
      paymentRef = answer.value.paymentRef;
    }
    const outcome = await this.writer.applyFactNow(payment.id, fact, paymentRef, "expiry_sweep");
    return outcome.changed.length;
  }

  /**
   * The processor has no such checkout (it forgot it, or never had it): nobody can pay it any
   * more, so the payment expires here, and an operator is told, once.
   */
  private async expireMissing(payment: DuePayment): Promise<number> {
    const outcome = await this.writer.inTransaction(async (tx, move) => {
      const applied = await this.writer.applyFact(
        tx,
        move,
        payment.id,
        { kind: "expired" },
        null,
        "expiry_sweep",
      );
      if (applied.changed.length > 0) {
        await openReconciliationItem(tx, {
          paymentId: payment.id,
          kind: "checkout_missing",
          detail: `the processor has no checkout ${payment.processor_checkout_id}; the payment was expired here`,
        });
      }
      return applied;
    });
    if (outcome.changed.length > 0) {
      this.log.warn(
        { transactionId: payment.id, checkoutId: payment.processor_checkout_id },
        "checkout missing at the processor: payment expired and listed for reconciliation",
      );
    }
    return outcome.changed.length;
  }
}
