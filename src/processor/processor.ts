// The processor as the service needs it: plain requests in, neutral facts out. Nothing here names
// a processor's own types, so the payments module never sees Stripe.

export interface CheckoutSessionRequest {
  transactionId: string;
  amount: number;
  currency: "usd" | "cad";
  customerEmail: string;
  /** Where the processor sends the customer back: always our own /return/:token URLs. */
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
  /** The same key for the same payment, so a retried call never opens two sessions. */
  idempotencyKey: string;
}

export interface CheckoutSession {
  id: string;
  url: string;
  status: "open" | "complete" | "expired";
  paid: boolean;
  paymentIntentId: string | null;
}

/** What the processor says happened to a payment, in our terms. */
export type ProcessorFact =
  | { kind: "paid" }
  | { kind: "failed" }
  | { kind: "expired" }
  /** amountRefunded is the cumulative total, so an older event carries a smaller figure. */
  | { kind: "refunded"; amountRefunded: number }
  | { kind: "disputed" }
  | { kind: "dispute_closed"; outcome: "won" | "lost" };

/** A verified processor event, reduced to what identifies the payment and what happened to it. */
export interface ProcessorEvent {
  id: string;
  type: string;
  /** Null for events the service does not act on: acknowledged and ignored. */
  fact: ProcessorFact | null;
  sessionId: string | null;
  paymentIntentId: string | null;
  /** The transaction id the processor carries for us (metadata): a hint, never proof. */
  transactionIdHint: string | null;
  /** Minor units and lowercase currency of the money the event is about, when it says. */
  amount: number | null;
  currency: string | null;
}

export interface RefundRequest {
  paymentIntentId: string;
  amount: number;
  reason: "requested_by_customer" | "duplicate" | "fraudulent" | null;
  /** The same for a retry of the same refund, so the processor never refunds twice. */
  idempotencyKey: string;
}

export interface Processor {
  /** Asks the processor to refund; throws ProcessorError when it refuses. */
  createRefund(request: RefundRequest): Promise<{ id: string; status: "pending" | "succeeded" | "failed" }>;
  createCheckoutSession(request: CheckoutSessionRequest): Promise<CheckoutSession>;
  retrieveCheckoutSession(sessionId: string): Promise<CheckoutSession>;
  /** Closes an open session; a session already complete or expired is returned as it is. */
  expireCheckoutSession(sessionId: string): Promise<CheckoutSession>;
  /** The transaction id a payment intent carries; null when the processor has no such intent. */
  transactionIdOfPaymentIntent(paymentIntentId: string): Promise<string | null>;
  /** Verifies the signature over the raw body and reads the event; throws InvalidEventError. */
  parseEvent(rawBody: Buffer, signatureHeader: string): ProcessorEvent;
}

/** Anything that went wrong talking to the processor: answered to merchants as 502. */
export class ProcessorError extends Error {
  override readonly name = "ProcessorError";
}

/** A processor event whose signature or shape does not check out. */
export class InvalidEventError extends Error {
  override readonly name = "InvalidEventError";
}
