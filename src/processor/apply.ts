import type { Queryable } from "../db/database.ts";
import type { PaymentRow, PaymentStatus } from "../payments/payment.ts";
import { canTransition, type TransitionResult, transition } from "../payments/transitions.ts";

/** What the processor says happened to a payment, in our terms. */
export type ProcessorFact =
  | { kind: "paid"; paymentIntentId: string | null }
  | { kind: "failed" }
  | { kind: "expired" }
  | { kind: "refunded"; paymentIntentId: string | null; amountRefunded: number }
  | { kind: "disputed"; paymentIntentId: string | null }
  | { kind: "dispute_closed"; paymentIntentId: string | null; outcome: "won" | "lost" };

export interface ApplyOutcome {
  changes: TransitionResult[];
  flaggedForReconciliation: boolean;
}

async function lockPayment(tx: Queryable, paymentId: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>("SELECT * FROM payments WHERE id = $1 FOR UPDATE", [paymentId]);
  return row;
}

/** Money moved on a payment the merchant no longer expects to be paid (spec §3.2): an operator decides. */
async function flagForReconciliation(
  tx: Queryable,
  payment: PaymentRow,
  reason: string,
  paymentIntentId: string | null,
) {
  await tx.query(
    `UPDATE payments SET needs_reconciliation = true, reconciliation_reason = $2, updated_at = now(),
       processor_payment_intent_id = COALESCE($3, processor_payment_intent_id)
     WHERE id = $1`,
    [payment.id, reason, paymentIntentId],
  );
}

const NOT_YET_PAID: ReadonlySet<PaymentStatus> = new Set(["pending", "processing", "failed"]);
const CLOSED_UNPAID: ReadonlySet<PaymentStatus> = new Set(["cancelled", "expired"]);

/**
 * Applies one processor fact inside the caller's transaction. Facts may arrive late, twice or out
 * of order: a refund or dispute before the completion implies the payment succeeded first.
 */
export async function applyProcessorFact(
  tx: Queryable,
  paymentId: string,
  fact: ProcessorFact,
  reason: string,
): Promise<ApplyOutcome> {
  const outcome: ApplyOutcome = { changes: [], flaggedForReconciliation: false };
  let payment = await lockPayment(tx, paymentId);
  if (!payment) return outcome;

  const move = async (
    to: PaymentStatus,
    extra: { paymentIntentId?: string | null; refundedAmount?: number } = {},
  ) => {
    if (!payment || !canTransition(payment.status, to)) return false;
    const result = await transition(tx, {
      paymentId,
      to,
      reason,
      processorPaymentIntentId: extra.paymentIntentId ?? null,
      ...(extra.refundedAmount !== undefined && { refundedAmount: extra.refundedAmount }),
    });
    if (!result) return false;
    outcome.changes.push(result);
    payment = result.payment;
    return true;
  };

  const moneyMoved = fact.kind !== "failed" && fact.kind !== "expired";
  if (moneyMoved && CLOSED_UNPAID.has(payment.status)) {
    await flagForReconciliation(
      tx,
      payment,
      `${fact.kind} reported on a ${payment.status} payment`,
      fact.paymentIntentId,
    );
    outcome.flaggedForReconciliation = true;
    return outcome;
  }
  if (moneyMoved && NOT_YET_PAID.has(payment.status)) {
    await move("succeeded", { paymentIntentId: fact.paymentIntentId });
  }

  switch (fact.kind) {
    case "paid":
      break;
    case "failed":
      await move("failed");
      break;
    case "expired":
      await move("expired");
      break;
    case "refunded": {
      // amount_refunded is cumulative, so an older event carries a smaller figure and is ignored.
      if (fact.amountRefunded <= payment.refunded_amount) break;
      const to = fact.amountRefunded >= payment.amount ? "refunded" : "partially_refunded";
      await move(to, { paymentIntentId: fact.paymentIntentId, refundedAmount: fact.amountRefunded });
      break;
    }
    case "disputed":
      await move("disputed", { paymentIntentId: fact.paymentIntentId });
      break;
    case "dispute_closed":
      // A close seen before its open still passes through disputed, so payment.disputed is sent.
      if (payment.status !== "disputed") await move("disputed", { paymentIntentId: fact.paymentIntentId });
      await move(fact.outcome === "won" ? "dispute_won" : "dispute_lost");
      break;
  }
  return outcome;
}
