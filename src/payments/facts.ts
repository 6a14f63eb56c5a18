import type { ProcessorFact } from "../processor/processor.ts";
import { CLOSED_UNPAID, canTransition, NOT_YET_PAID, type PaymentStatus } from "./status.ts";

export interface FactStep {
  to: PaymentStatus;
  refundedAmount?: number;
}

export type FactPlan =
  | { kind: "steps"; steps: FactStep[] }
  /** Money moved on a payment closed unpaid: nothing changes, an operator decides (spec §3.2). */
  | { kind: "reconcile"; reason: string };

/**
 * The status changes one processor fact causes. Facts may arrive late, twice or out of order:
 * a refund or dispute seen before the completion implies the payment succeeded first, and a
 * dispute close seen before its open still passes through `disputed`, so each webhook is sent.
 */
export function planFact(
  payment: { status: PaymentStatus; amount: number; refundedAmount: number },
  fact: ProcessorFact,
): FactPlan {
  const moneyMoved = fact.kind !== "failed" && fact.kind !== "expired";
  if (moneyMoved && CLOSED_UNPAID.has(payment.status)) {
    return { kind: "reconcile", reason: `${fact.kind} reported on a ${payment.status} payment` };
  }
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
