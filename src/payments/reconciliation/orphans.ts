// Money a customer paid on a checkout that belongs to no payment (one a create abandoned, or one
// whose payment the books lost): the operator gives it back in full, once, at the processor that took it.
import { type Audit, withAudit } from "../../platform/audit/store.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import type { Currency } from "../../platform/format/money.ts";
import { callProcessor } from "../../processor/call.ts";
import type { ProcessorName } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { claimOrphanRefund, recordOrphanRefund, releaseOrphanClaim } from "./store.ts";

/** One processor key per orphan, whichever table it is in: the same refund is never made twice. */
const ORPHAN_KEY_PREFIX = { abandoned: "orphan", unbooked: "unbooked" } as const;

/** Longer than a processor call may take: while it runs, a second ask is told to wait. */
const ORPHAN_REFUND_CLAIM_MS = 60_000;

/** The operator's full refund of money taken on an abandoned checkout. */
export type OrphanRefund = {
  itemId: string;
  processor: ProcessorName;
  processorPaymentId: string;
  processorRefundId: string;
  amount: number;
  currency: Currency;
  status: "pending" | "succeeded";
};

export class OrphanRefunds {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    /** The longest the operator waits for the processor: past it the call stops, and asking again is safe. */
    private readonly refundDeadlineMs: number,
  ) {}

  /**
   * Gives back in full the money a customer paid on an abandoned checkout (an
   * `orphan_checkout_paid` item), at the processor that took it. One idempotency key per orphan:
   * however often it is asked, by however many operators, the processor refunds it once.
   */
  async refund(itemId: string, audit: Audit<OrphanRefund>): Promise<OrphanRefund> {
    const orphan = /^\d{1,18}$/.test(itemId)
      ? await claimOrphanRefund(this.db, itemId, ORPHAN_REFUND_CLAIM_MS)
      : undefined;
    if (!orphan) throw notFound("Open orphan checkout item");
    if (orphan === "busy") {
      throw new DomainError(
        "IDEMPOTENCY_IN_PROGRESS",
        "A refund of this item is being asked for; read the queue again in a few seconds",
      );
    }
    if (orphan.amount <= 0) {
      throw new DomainError(
        "INVALID_REQUEST",
        "Nothing is left to give back: the processor has refunded it all",
      );
    }
    if (!orphan.payment_ref) {
      throw new DomainError(
        "INVALID_REQUEST",
        "The processor did not name the payment taken on this checkout",
      );
    }
    const adapter = this.processors.of(orphan.processor);
    const paymentRef = orphan.payment_ref;
    const answer = await callProcessor(
      (signal) =>
        adapter.refund(
          {
            paymentRef,
            amount: orphan.amount,
            reason: "duplicate",
            refundId: `${ORPHAN_KEY_PREFIX[orphan.source]}-${orphan.source_id}`,
            transactionId: orphan.transaction_id,
            idempotencyKey: `${ORPHAN_KEY_PREFIX[orphan.source]}-refund-${orphan.source_id}`,
          },
          signal,
        ),
      { deadlineMs: this.refundDeadlineMs },
    );
    const giveUp = async (message: string): Promise<never> => {
      await releaseOrphanClaim(this.db, orphan);
      throw new DomainError("PROCESSOR_ERROR", message);
    };
    const refused = "The payment processor refused the refund";
    if (answer.kind === "refused") return giveUp(refused);
    if (answer.kind === "unknown") {
      return giveUp("The payment processor did not answer; ask again: the same refund is never made twice");
    }
    const refund = answer.value;
    const { status } = refund;
    if (status === "failed") return giveUp(refused);
    const result: OrphanRefund = {
      itemId,
      processor: adapter.name,
      processorPaymentId: orphan.payment_ref,
      processorRefundId: refund.id,
      amount: orphan.amount,
      currency: orphan.currency,
      status,
    };
    const note = `refunded in full at ${orphan.processor}: refund ${refund.id} (${refund.status})`;
    await withAudit(
      this.db,
      () => audit(result),
      (q) => recordOrphanRefund(q, itemId, orphan, refund.id, note),
    );
    return result;
  }
}
