import type Stripe from "stripe";

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

export interface Processor {
  createCheckoutSession(request: CheckoutSessionRequest): Promise<CheckoutSession>;
  retrieveCheckoutSession(sessionId: string): Promise<CheckoutSession>;
  /** Closes an open session; a session already complete or expired is returned as it is. */
  expireCheckoutSession(sessionId: string): Promise<CheckoutSession>;
  retrievePaymentIntent(paymentIntentId: string): Promise<{ id: string; metadata: Record<string, string> }>;
  /** Verifies the signature over the raw body; throws on a bad or stale one. */
  verifyEvent(rawBody: Buffer, signatureHeader: string): Stripe.Event;
}

/** Anything that went wrong talking to the processor: answered to merchants as 502. */
export class ProcessorError extends Error {
  override readonly name = "ProcessorError";
}
