import type { ProcessorAction } from "../../processor/port.ts";
import { CLOSED_UNPAID, canTransition, NOT_YET_PAID, type PaymentStatus } from "./status.ts";

/**
 * The actions that move a payment; a refund's own settlement is the refunds module's, and a
 * dispute's own progress the disputes module's.
 */
export type PaymentFact = Exclude<ProcessorAction, { kind: "refund_settled" | "dispute_updated" }>;

export interface FactStep {
  to: PaymentStatus;
  refundedAmount?: number;
}

export type ClosedItemKind = "paid_after_cancel" | "paid_after_expiry" | "disputed_after_close";

export type FactPlan =
  | { kind: "steps"; steps: FactStep[] }
  /**
   * Money moved on a payment closed unpaid: its status stays, what the processor did is recorded
   * (paid, and how much went back), and an operator decides.
   */
  | { kind: "closed"; item: ClosedItemKind | null; detail: string; refundedAmount: number | null };

/**
 * The status changes one processor fact causes. Facts may arrive late, twice or out of order:
 * a refund or dispute seen before the completion implies the payment succeeded first, and a
 * dispute close seen before its open still passes through `disputed`, so each webhook is sent.
 */
export function planFact(
  payment: { status: PaymentStatus; amount: number; refundedAmount: number },
  fact: PaymentFact,
): FactPlan {
  const moneyMoved = fact.kind !== "failed" && fact.kind !== "expired";
  if (moneyMoved && CLOSED_UNPAID.has(payment.status)) return planOnClosed(payment, fact);
  const steps: FactStep[] = [];
  let status = payment.status;
  const move = (to: PaymentStatus, refundedAmount?: number) => {
    if (!canTransition(status, to)) return;
    steps.push(refundedAmount === undefined ? { to } : { to, refundedAmount });
    status = to;
  };
  if (moneyMoved && NOT_YET_PAID.has(status)) move("succeeded");
  switch (fact.kind) {
    case "paid":
      break;
    case "failed":
    case "expired":
      move(fact.kind);
      break;
    case "refunded":
      // The figure is cumulative: one not above what we know is an older event.
      if (fact.amountRefunded > payment.refundedAmount) {
        move(fact.amountRefunded >= payment.amount ? "refunded" : "partially_refunded", fact.amountRefunded);
      }
      break;
    case "disputed":
      move("disputed");
      break;
    case "dispute_closed":
      if (status !== "disputed") move("disputed");
      move(fact.outcome === "won" ? "dispute_won" : "dispute_lost");
      break;
  }
  return { kind: "steps", steps };
}

function planOnClosed(
  payment: { status: PaymentStatus; refundedAmount: number },
  fact: PaymentFact,
): FactPlan {
  const detail = `${fact.kind} reported on a ${payment.status} payment`;
  if (fact.kind === "refunded") {
    // Money going back is what the operator wants; the item raised by the payment stays as it is.
    const refundedAmount = fact.amountRefunded > payment.refundedAmount ? fact.amountRefunded : null;
    return { kind: "closed", item: null, detail, refundedAmount };
  }
  const item: ClosedItemKind =
    fact.kind === "paid"
      ? payment.status === "cancelled"
        ? "paid_after_cancel"
        : "paid_after_expiry"
      : "disputed_after_close";
  return { kind: "closed", item, detail, refundedAmount: null };
}
