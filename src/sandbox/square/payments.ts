import type { EventSender } from "../events.ts";
import {
  type CardOutcome,
  type CheckoutView,
  type DisputeOptions,
  defaultDueBy,
  type ProcessorSimulation,
  REFUND_FAILURE_CARD,
  SandboxError,
} from "../simulation.ts";
import {
  type SandboxState,
  type SquareDispute,
  type SquareOrder,
  type SquarePayment,
  type SquarePaymentLink,
  type SquareRefund,
  squareId,
} from "../state.ts";
import { sendSquareEvent } from "./events.ts";

const now = (): string => new Date().toISOString();

/** The money movements Square would make, each announcing itself with a Square event. */
export class SquarePayments implements ProcessorSimulation {
  constructor(
    private readonly state: SandboxState,
    private readonly events: EventSender,
  ) {}

  owns(id: string): boolean {
    const { squareLinks, squarePayments, squareDisputes } = this.state;
    return squareLinks.has(id) || squarePayments.has(id) || squareDisputes.has(id);
  }

  private link(linkId: string): { link: SquarePaymentLink; order: SquareOrder } {
    const link = this.state.squareLinks.get(linkId);
    const order = link && this.state.squareOrders.get(link.order_id);
    if (!link || !order)
      throw new SandboxError(404, `Resource not found: payment link ${linkId}`, "NOT_FOUND");
    return { link, order };
  }

  checkoutView(linkId: string): CheckoutView | undefined {
    if (!this.state.squareLinks.has(linkId)) return undefined;
    const { link, order } = this.link(linkId);
    const line = order.line_items[0];
    return {
      id: link.id,
      status: order.state === "COMPLETED" ? "complete" : order.state === "CANCELED" ? "expired" : "open",
      amount: order.total_money.amount,
      currency: order.total_money.currency.toLowerCase(),
      customerEmail: link.pre_populated_data.buyer_email ?? null,
      lineItem: line?.name ?? "Payment",
      successUrl: link.checkout_options.redirect_url,
      // Square has no cancel URL: the way back is the redirect URL.
      back: { url: link.checkout_options.redirect_url, label: "Back to the shop" },
    };
  }

  paymentOf(linkId: string): string | null {
    const link = this.state.squareLinks.get(linkId);
    const order = link && this.state.squareOrders.get(link.order_id);
    return order?.tenders?.[0]?.payment_id ?? null;
  }

  attempt(linkId: string, outcome: CardOutcome, card?: string, silent = false): object {
    const { link, order } = this.link(linkId);
    if (order.state !== "OPEN") {
      throw new SandboxError(400, `This payment link's order is ${order.state}.`, "BAD_REQUEST");
    }
    const payment: SquarePayment = {
      id: squareId(),
      amount_money: { ...order.total_money },
      total_money: { ...order.total_money },
      status: outcome === "failed" ? "FAILED" : "APPROVED",
      order_id: order.id,
      location_id: order.location_id,
      source_type: "CARD",
      ...(link.pre_populated_data.buyer_email && {
        buyer_email_address: link.pre_populated_data.buyer_email,
      }),
      ...(card === REFUND_FAILURE_CARD && { refunds_fail: true }),
      created_at: now(),
      updated_at: now(),
    };
    this.state.put("square_payment", payment.id, payment);
    if (!silent) sendSquareEvent(this.events, "payment.created", "payment", payment);
    if (outcome === "failed") {
      // A declined card leaves the order open, as a second try on the same page may pay.
      if (!silent) sendSquareEvent(this.events, "payment.updated", "payment", payment);
      return { payment_link: link, payment };
    }
    payment.status = "COMPLETED";
    payment.updated_at = now();
    order.state = "COMPLETED";
    order.tenders = [
      { id: payment.id, payment_id: payment.id, type: "CARD", amount_money: { ...order.total_money } },
    ];
    order.version += 1;
    order.updated_at = now();
    this.state.put("square_payment", payment.id, payment);
    this.state.put("square_order", order.id, order);
    if (!silent) sendSquareEvent(this.events, "payment.updated", "payment", payment);
    return { payment_link: link, payment };
  }

  /** Deletes the link, which cancels its open order, as Square's DELETE does. */
  expire(linkId: string): object {
    const { link, order } = this.link(linkId);
    this.state.forget("square_link", link.id);
    if (order.state !== "OPEN") return { id: link.id };
    order.state = "CANCELED";
    order.version += 1;
    order.updated_at = now();
    this.state.put("square_order", order.id, order);
    return { id: link.id, cancelled_order_id: order.id };
  }

  forgetCheckout(linkId: string): void {
    this.link(linkId);
    this.state.forget("square_link", linkId);
  }

  private completedPayment(paymentId: string): SquarePayment {
    const payment = this.state.squarePayments.get(paymentId);
    if (payment?.status !== "COMPLETED") {
      throw new SandboxError(404, `No completed payment ${paymentId}`, "NOT_FOUND");
    }
    return payment;
  }

  refund(paymentId: string, amount: number | undefined, silent = false, reason?: string): SquareRefund {
    const payment = this.completedPayment(paymentId);
    const remaining = payment.amount_money.amount - (payment.refunded_money?.amount ?? 0);
    const refundAmount = amount ?? remaining;
    if (!Number.isInteger(refundAmount) || refundAmount < 1 || refundAmount > remaining) {
      throw new SandboxError(400, `The refund amount must be between 1 and ${remaining}`, "INVALID_VALUE");
    }
    const refund: SquareRefund = {
      id: `${payment.id}_${squareId()}`,
      status: payment.refunds_fail ? "REJECTED" : "COMPLETED",
      amount_money: { amount: refundAmount, currency: payment.amount_money.currency },
      payment_id: payment.id,
      order_id: payment.order_id,
      location_id: payment.location_id,
      ...(reason && { reason }),
      created_at: now(),
      updated_at: now(),
    };
    this.state.put("square_refund", refund.id, refund);
    payment.refund_ids = [...(payment.refund_ids ?? []), refund.id];
    if (refund.status === "COMPLETED") {
      payment.refunded_money = {
        amount: (payment.refunded_money?.amount ?? 0) + refundAmount,
        currency: payment.amount_money.currency,
      };
    }
    payment.updated_at = now();
    this.state.put("square_payment", payment.id, payment);
    if (!silent) {
      sendSquareEvent(this.events, "refund.created", "refund", refund);
      if (refund.status === "COMPLETED") sendSquareEvent(this.events, "payment.updated", "payment", payment);
    }
    return refund;
  }

  dispute(paymentId: string, silent = false, options: DisputeOptions = {}): SquareDispute {
    const payment = this.completedPayment(paymentId);
    const id = squareId();
    const dispute: SquareDispute = {
      id,
      dispute_id: id,
      amount_money: { ...payment.amount_money },
      reason: options.reason ?? "NOT_AS_DESCRIBED",
      state: "EVIDENCE_REQUIRED",
      due_at: (options.evidenceDueBy ?? defaultDueBy()).toISOString(),
      evidence_ids: [],
      disputed_payment: { payment_id: payment.id },
      location_id: payment.location_id,
      version: 1,
      created_at: now(),
      updated_at: now(),
    };
    this.state.put("square_dispute", id, dispute);
    if (!silent) sendSquareEvent(this.events, "dispute.created", "dispute", dispute);
    return dispute;
  }

  disputeView(disputeId: string): SquareDispute {
    const dispute = this.state.squareDisputes.get(disputeId);
    if (!dispute) throw new SandboxError(404, `Dispute ${disputeId} not found`, "NOT_FOUND");
    return dispute;
  }

  /** A dispute still taking evidence: waiting, and before its deadline. */
  private answerable(disputeId: string): SquareDispute {
    const dispute = this.disputeView(disputeId);
    if (dispute.state !== "EVIDENCE_REQUIRED" || Date.parse(dispute.due_at) <= Date.now()) {
      throw new SandboxError(400, "The dispute is not in a state that takes this request", "BAD_REQUEST");
    }
    return dispute;
  }

  /** POST /v2/disputes/:id/evidence-text: one text filed; its id joins the dispute's. */
  addEvidenceText(disputeId: string, type: string, text: string): { id: string; evidence_type: string } {
    const dispute = this.answerable(disputeId);
    if (text.length === 0 || text.length > 500_000) {
      throw new SandboxError(400, "evidence_text must be 1 to 500000 characters", "INVALID_VALUE");
    }
    const evidence = { id: squareId(), evidence_type: type };
    dispute.evidence_ids.push(evidence.id);
    dispute.version += 1;
    dispute.updated_at = now();
    this.state.put("square_dispute", dispute.id, dispute);
    return evidence;
  }

  /** POST /v2/disputes/:id/submit-evidence: the evidence goes to the bank. */
  submitEvidence(disputeId: string): SquareDispute {
    return this.moveDispute(this.answerable(disputeId), "PROCESSING");
  }

  /** POST /v2/disputes/:id/accept: the seller gives the money up. */
  acceptDispute(disputeId: string): SquareDispute {
    return this.moveDispute(this.answerable(disputeId), "ACCEPTED");
  }

  private moveDispute(dispute: SquareDispute, state: SquareDispute["state"], silent = false): SquareDispute {
    dispute.state = state;
    dispute.version += 1;
    dispute.updated_at = now();
    this.state.put("square_dispute", dispute.id, dispute);
    if (!silent) sendSquareEvent(this.events, "dispute.state.updated", "dispute", dispute);
    return dispute;
  }

  closeDispute(disputeId: string, outcome: "won" | "lost", silent = false): SquareDispute {
    const dispute = this.disputeView(disputeId);
    if (dispute.state !== "EVIDENCE_REQUIRED" && dispute.state !== "PROCESSING") {
      throw new SandboxError(400, "This dispute is already closed");
    }
    return this.moveDispute(dispute, outcome === "won" ? "WON" : "LOST", silent);
  }
}
