// Money a customer paid on a checkout that a create abandoned belongs to no payment: the operator
// gives it back in full, once, at the processor that took it.
import { type Audit, withAudit } from "../../platform/audit/store.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import type { Currency } from "../../platform/format/money.ts";
import {
  type ProcessorName,
  type ProcessorRefund,
  ProcessorRefusedError,
  ProcessorUnavailableError,
} from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { claimOrphanRefund, recordOrphanRefund, releaseOrphanClaim } from "./store.ts";

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
    if (!orphan.payment_ref) {
      throw new DomainError(
        "INVALID_REQUEST",
        "The processor did not name the payment taken on this checkout",
      );
    }
    const adapter = this.processors.of(orphan.processor);
    let refund: ProcessorRefund;
    try {
      refund = await adapter.refund({
        paymentRef: orphan.payment_ref,
        amount: orphan.amount,
        reason: "duplicate",
        refundId: `orphan-${orphan.abandoned_id}`,
        transactionId: orphan.transaction_id,
        idempotencyKey: `orphan-refund-${orphan.abandoned_id}`,
      });
      if (refund.status === "failed") throw new ProcessorRefusedError("the refund failed");
    } catch (error) {
      await releaseOrphanClaim(this.db, orphan.abandoned_id);
      if (error instanceof ProcessorRefusedError) {
        throw new DomainError("PROCESSOR_ERROR", "The payment processor refused the refund");
      }
      if (!(error instanceof ProcessorUnavailableError)) throw error;
      throw new DomainError(
        "PROCESSOR_ERROR",
        "The payment processor did not answer; ask again: the same refund is never made twice",
      );
    }
    const result: OrphanRefund = {
      itemId,
      processor: adapter.name,
      processorPaymentId: orphan.payment_ref,
      processorRefundId: refund.id,
      amount: orphan.amount,
      currency: orphan.currency,
      status: refund.status,
    };
    const note = `refunded in full at ${orphan.processor}: refund ${refund.id} (${refund.status})`;
    await withAudit(
      this.db,
      () => audit(result),
      (q) => recordOrphanRefund(q, itemId, orphan.abandoned_id, refund.id, note),
    );
    return result;
  }
}
