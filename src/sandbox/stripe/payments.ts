import type { EventSender } from "../events.ts";
import {
  type CheckoutView,
  type DisputeOptions,
  defaultDueBy,
  type ProcessorSimulation,
  REFUND_FAILURE_CARD,
  SandboxError,
} from "../simulation.ts";
import {
  nowSeconds,
  type SandboxCharge,
  type SandboxDispute,
  type SandboxPaymentIntent,
  type SandboxRefund,
  type SandboxSession,
  type SandboxState,
  sandboxId,
} from "../state.ts";
import { sendStripeEvent } from "./events.ts";

/** The money movements Stripe would make, each announcing itself with a Stripe event. */
export class StripePayments implements ProcessorSimulation {
  private readonly expiryAnnounced = new Set<string>();

  constructor(
    private readonly state: SandboxState,
    private readonly events: EventSender,
  ) {}

  owns(id: string): boolean {
    return this.state.sessions.has(id) || this.state.paymentIntents.has(id) || this.state.disputes.has(id);
  }

  checkoutView(checkoutId: string): CheckoutView | undefined {
    const session = this.state.session(checkoutId);
    if (!session) return undefined;
    return {
      id: session.id,
      status: session.status,
      amount: session.amount_total,
      currency: session.currency,
      customerEmail: session.customer_email,
      lineItem: session.line_item_name ?? "Payment",
      successUrl: session.success_url,
      back: { url: session.cancel_url, label: "Back" },
    };
  }

  paymentOf(checkoutId: string): string | null {
    return this.state.sessions.get(checkoutId)?.payment_intent ?? null;
  }

  private send(type: string, object: object): void {
    sendStripeEvent(this.events, type, object);
  }

  openSession(id: string): SandboxSession {
    const session = this.state.session(id);
    if (!session) throw new SandboxError(404, `No such checkout.session: '${id}'`);
    if (session.status !== "open") {
      throw new SandboxError(400, `This Checkout Session is ${session.status}.`, "checkout_session_not_open");
    }
    return session;
  }

  private intentFor(session: SandboxSession): SandboxPaymentIntent {
    const existing = session.payment_intent
      ? this.state.paymentIntents.get(session.payment_intent)
      : undefined;
    if (existing) return existing;
    const intent: SandboxPaymentIntent = {
      id: sandboxId("pi"),
      object: "payment_intent",
      amount: session.amount_total,
      currency: session.currency,
      status: "requires_payment_method",
      latest_charge: null,
      metadata: session.payment_intent_metadata,
      created: nowSeconds(),
    };
    session.payment_intent = intent.id;
    this.state.put("payment_intent", intent.id, intent);
    this.state.put("session", session.id, session);
    return intent;
  }

  /**
   * A card attempt on an open session: pays it or records a decline (the page stays open).
   * `silent` pays without announcing it: the event the service would have had is lost.
   */
  attempt(sessionId: string, outcome: "succeeded" | "failed", card?: string, silent = false): SandboxSession {
    const session = this.openSession(sessionId);
    const intent = this.intentFor(session);
    if (outcome === "failed") {
      this.send("payment_intent.payment_failed", {
        ...intent,
        last_payment_error: { code: "card_declined", message: "Your card was declined." },
      });
      return session;
    }
    const charge: SandboxCharge = {
      id: sandboxId("ch"),
      object: "charge",
      amount: intent.amount,
      amount_refunded: 0,
      refunded: false,
      refunds_fail: card === REFUND_FAILURE_CARD,
      currency: intent.currency,
      payment_intent: intent.id,
      metadata: intent.metadata,
      created: nowSeconds(),
    };
    intent.status = "succeeded";
    intent.latest_charge = charge.id;
    session.status = "complete";
    session.payment_status = "paid";
    session.url = null;
    this.state.put("charge", charge.id, charge);
    this.state.put("payment_intent", intent.id, intent);
    this.state.put("session", session.id, session);
    if (!silent) this.send("checkout.session.completed", session);
    return session;
  }

  /** Closes an open session (or one whose time ran out) and announces it once, as Stripe does. */
  expire(sessionId: string): SandboxSession {
    const session = this.state.session(sessionId);
    if (!session) throw new SandboxError(404, `No such checkout.session: '${sessionId}'`);
    if (session.status === "complete" || this.expiryAnnounced.has(session.id)) {
      throw new SandboxError(
        400,
        `Only open sessions can be expired; this one is ${session.status}.`,
        "checkout_session_not_open",
      );
    }
    session.status = "expired";
    session.url = null;
    this.state.put("session", session.id, session);
    this.expiryAnnounced.add(session.id);
    this.send("checkout.session.expired", session);
    return session;
  }

  private chargeOf(paymentIntentId: string): SandboxCharge {
    const intent = this.state.paymentIntents.get(paymentIntentId);
    const charge = intent?.latest_charge ? this.state.charges.get(intent.latest_charge) : undefined;
    if (!charge) throw new SandboxError(404, `No succeeded charge for payment_intent '${paymentIntentId}'`);
    return charge;
  }

  /** Forgets a session, as if it never existed: Stripe calls on it answer 404 from now on. */
  forgetCheckout(sessionId: string): void {
    if (!this.state.sessions.has(sessionId))
      throw new SandboxError(404, `No such checkout.session: '${sessionId}'`);
    this.state.forget("session", sessionId);
  }

  refund(paymentIntentId: string, amount: number | undefined, silent = false): SandboxRefund {
    return this.carryOutRefund(paymentIntentId, { amount }, silent);
  }

  /** Carries out a refund and announces it, unless `silent` (a lost event). */
  carryOutRefund(
    paymentIntentId: string,
    options: { amount?: number | undefined; reason?: string | undefined; metadata?: Record<string, string> },
    silent = false,
  ): SandboxRefund {
    const amount = options.amount;
    const charge = this.chargeOf(paymentIntentId);
    if (charge.refunds_fail) {
      throw new SandboxError(402, "The refund could not be processed for this card.", "charge_refund_failed");
    }
    const remaining = charge.amount - charge.amount_refunded;
    const refundAmount = amount ?? remaining;
    if (!Number.isInteger(refundAmount) || refundAmount < 1 || refundAmount > remaining) {
      throw new SandboxError(400, `Refund amount must be between 1 and ${remaining}`, "amount_too_large");
    }
    charge.amount_refunded += refundAmount;
    charge.refunded = charge.amount_refunded === charge.amount;
    const refund: SandboxRefund = {
      id: sandboxId("re"),
      object: "refund",
      amount: refundAmount,
      charge: charge.id,
      payment_intent: paymentIntentId,
      status: "succeeded",
      reason: options.reason ?? null,
      currency: charge.currency,
      metadata: options.metadata ?? {},
      created: nowSeconds(),
    };
    this.state.put("charge", charge.id, charge);
    this.state.put("refund", refund.id, refund);
    if (!silent) {
      this.send("charge.refunded", charge);
      this.send("refund.created", refund);
    }
    return refund;
  }

  dispute(paymentIntentId: string, silent = false, options: DisputeOptions = {}): SandboxDispute {
    const charge = this.chargeOf(paymentIntentId);
    const dispute: SandboxDispute = {
      id: sandboxId("dp"),
      object: "dispute",
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: paymentIntentId,
      reason: options.reason ?? "fraudulent",
      status: "needs_response",
      evidence: {},
      evidence_details: {
        due_by: Math.floor((options.evidenceDueBy ?? defaultDueBy()).getTime() / 1000),
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      created: nowSeconds(),
    };
    this.state.put("dispute", dispute.id, dispute);
    if (!silent) this.send("charge.dispute.created", dispute);
    return dispute;
  }

  /** A dispute as Stripe shows it: past its deadline, `past_due`. */
  disputeView(disputeId: string): SandboxDispute {
    const dispute = this.state.disputes.get(disputeId);
    if (!dispute) throw new SandboxError(404, `No such dispute: '${disputeId}'`, "resource_missing");
    dispute.evidence_details.past_due = dispute.evidence_details.due_by <= nowSeconds();
    return dispute;
  }

  /** POST /v1/disputes/:id: text evidence merged in; `submit` sends it to the bank. */
  updateDispute(disputeId: string, evidence: Record<string, string>, submit: boolean): SandboxDispute {
    const dispute = this.disputeView(disputeId);
    if (dispute.status !== "needs_response" || dispute.evidence_details.past_due) {
      throw new SandboxError(400, "This dispute is no longer accepting evidence", "dispute_already_closed");
    }
    for (const [field, text] of Object.entries(evidence)) {
      if (text.length > 20_000) {
        throw new SandboxError(
          400,
          `evidence[${field}] is longer than 20000 characters`,
          "parameter_invalid_string",
        );
      }
    }
    dispute.evidence = { ...dispute.evidence, ...evidence };
    dispute.evidence_details.has_evidence = Object.keys(dispute.evidence).length > 0;
    if (submit) {
      dispute.status = "under_review";
      dispute.evidence_details.submission_count += 1;
    }
    this.state.put("dispute", dispute.id, dispute);
    this.send("charge.dispute.updated", dispute);
    return dispute;
  }

  /** POST /v1/disputes/:id/close: the merchant concedes; Stripe calls it lost. */
  concedeDispute(disputeId: string): SandboxDispute {
    const dispute = this.disputeView(disputeId);
    if (dispute.status !== "needs_response") {
      throw new SandboxError(400, "This dispute is already closed", "dispute_already_closed");
    }
    dispute.status = "lost";
    this.state.put("dispute", dispute.id, dispute);
    this.send("charge.dispute.closed", dispute);
    return dispute;
  }

  closeDispute(disputeId: string, outcome: "won" | "lost", silent = false): SandboxDispute {
    const dispute = this.state.disputes.get(disputeId);
    if (!dispute) throw new SandboxError(404, `No such dispute: '${disputeId}'`);
    if (dispute.status !== "needs_response" && dispute.status !== "under_review") {
      throw new SandboxError(400, "This dispute is already closed");
    }
    dispute.status = outcome;
    this.state.put("dispute", dispute.id, dispute);
    if (!silent) this.send("charge.dispute.closed", dispute);
    return dispute;
  }
}
