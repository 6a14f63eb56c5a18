// What every emulated processor offers the sandbox's shared parts: the test page, the simulation
// endpoints (what a customer, a bank or a dispute would cause) and `checkout trigger`.

export const TEST_CARDS = {
  "4242424242424242": "succeeded",
  "4000000000000002": "failed",
  // Pays, and every refund of it is refused, like Stripe's refund-failure test card.
  "4000000000005126": "succeeded",
} as const;

export const REFUND_FAILURE_CARD = "4000000000005126";

export type CardOutcome = "succeeded" | "failed";

/** A refusal in the processor's own words; each emulator shapes it as its API does. */
export class SandboxError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code = statusCode === 404 ? "resource_missing" : "invalid_request",
  ) {
    super(message);
  }
}

/** A checkout as the shared test page shows it. */
export interface CheckoutView {
  id: string;
  status: "open" | "complete" | "expired";
  amount: number;
  currency: string;
  customerEmail: string | null;
  lineItem: string;
  /** Where a paying customer goes. */
  successUrl: string;
  /** Stripe's cancel URL, or Square's "back to the shop" (its redirect URL). */
  back: { url: string; label: string };
}

/** A simulated dispute's own facts, in the processor's terms. */
export interface DisputeOptions {
  /** The processor's reason code (Stripe's `fraudulent`, Square's `NOT_RECEIVED`, …). */
  reason?: string | undefined;
  /** The last moment evidence is taken: a week from now unless given. */
  evidenceDueBy?: Date | undefined;
}

/** Card networks give the merchant about a week to answer; the sandbox does the same. */
export const defaultDueBy = (): Date => new Date(Date.now() + 7 * 86_400_000);

export interface ProcessorSimulation {
  /** Whether a checkout, payment or dispute id is this processor's. */
  owns(id: string): boolean;
  checkoutView(checkoutId: string): CheckoutView | undefined;
  /** A card attempt: pays the checkout, or records a decline; `silent` loses its event. */
  attempt(checkoutId: string, outcome: CardOutcome, card?: string, silent?: boolean): object;
  expire(checkoutId: string): object;
  /** Forgets a checkout as if it never existed: calls on it answer 404 from now on. */
  forgetCheckout(checkoutId: string): void;
  refund(paymentId: string, amount: number | undefined, silent?: boolean): object;
  dispute(paymentId: string, silent?: boolean, options?: DisputeOptions): object;
  closeDispute(disputeId: string, outcome: "won" | "lost", silent?: boolean): object;
  /** The processor's payment id of a paid checkout (for `checkout trigger`). */
  paymentOf(checkoutId: string): string | null;
}
