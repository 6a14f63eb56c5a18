// The processor as the payments module needs it, in neutral terms: open a checkout, look a payment
// up, expire a checkout, refund, and read a verified event as an action. Each processor's adapter
// maps its own API onto this; nothing outside its folder names a processor's types.
import type { Currency } from "../platform/format/money.ts";

/** A processor by the name payments carry and the intake path names: one of the catalog's. */
export type ProcessorName = string;

export interface CheckoutRequest {
  transactionId: string;
  amount: number;
  currency: Currency;
  customerEmail: string;
  /** The one line the customer sees on the processor's page. */
  lineItemName: string;
  /** Where the processor sends the customer back: always our own /return/:token URLs. */
  returnUrl: string;
  expiresAt: Date;
  /** The same key for the same payment, so a retried call never opens two checkouts. */
  idempotencyKey: string;
}

export interface Checkout {
  id: string;
  url: string;
  /** Open to the customer; finished (the customer went through it); or expired (closed unused). */
  status: "open" | "finished" | "expired";
  /** The processor took the customer's money. */
  paid: boolean;
  /** The processor's id of the payment made through this checkout, once there is one. */
  paymentRef: string | null;
}

export type ProcessorRefundStatus = "pending" | "succeeded" | "failed";

export interface ProcessorRefund {
  id: string;
  amount: number;
  status: ProcessorRefundStatus;
  /** Our refund id, as we gave it to the processor: a hint, never proof. */
  refundIdHint: string | null;
}

/** Why a cardholder disputes a payment, in the merchant API's words. */
export type DisputeReason =
  | "fraudulent"
  | "product_not_received"
  | "product_unacceptable"
  | "duplicate"
  | "credit_not_processed"
  | "unrecognized"
  | "general";

/**
 * A dispute's state: waiting for the merchant's answer; answered and with the bank; or closed,
 * won, lost, or conceded by the merchant (`accepted`).
 */
export type DisputeStatus = "needs_response" | "under_review" | "won" | "lost" | "accepted";

/** The statuses in which a dispute is still to be decided. */
export const OPEN_DISPUTE_STATUSES: ReadonlySet<DisputeStatus> = new Set(["needs_response", "under_review"]);

export interface ProcessorDispute {
  id: string;
  status: DisputeStatus;
  amount: number;
  /** Lowercase ISO 4217. */
  currency: string;
  reason: DisputeReason;
  /** The last moment the processor takes evidence; null when it names none. */
  evidenceDueBy: Date | null;
}

/** The merchant's answer to a dispute, as text: each processor files it under its own headings. */
export interface DisputeEvidence {
  productDescription?: string;
  customerCommunication?: string;
  refundPolicy?: string;
  serviceDate?: string;
  shippingTracking?: string;
  uncategorizedText?: string;
}

export const DISPUTE_EVIDENCE_FIELDS = [
  "productDescription",
  "customerCommunication",
  "refundPolicy",
  "serviceDate",
  "shippingTracking",
  "uncategorizedText",
] as const satisfies readonly (keyof DisputeEvidence)[];

export interface DisputeEvidenceRequest {
  disputeRef: string;
  evidence: DisputeEvidence;
  /** Submit it for review; otherwise it is kept as a draft the merchant may still change. */
  submit: boolean;
  /** The same for a repeat of the same evidence, so the processor files it once. */
  idempotencyKey: string;
}

/** A checkout as the processor lists it: what a reconciliation run holds against our payments. */
export interface ListedCheckout {
  /** The processor's id of the checkout (Square: its order). */
  id: string;
  /** The transaction id the processor carries for us: a hint, never proof. */
  transactionIdHint: string | null;
  paid: boolean;
  paymentRef: string | null;
  amount: number;
  /** Lowercase ISO 4217. */
  currency: string;
  createdAt: Date;
}

/** What the processor knows of one payment: the truth a reconciliation run compares with. */
export interface ProcessorPayment {
  ref: string;
  amount: number;
  currency: string;
  amountRefunded: number;
  refunds: ProcessorRefund[];
  disputes: ProcessorDispute[];
}

/** What the processor says happened to a payment, in our terms. */
export type ProcessorAction =
  | { kind: "paid" }
  | { kind: "failed" }
  | { kind: "expired" }
  /** amountRefunded is the cumulative total, so an older event carries a smaller figure. */
  | { kind: "refunded"; amountRefunded: number }
  /** The dispute itself, when the processor told it: recorded, and answered through the service. */
  | { kind: "disputed"; dispute?: ProcessorDispute }
  | { kind: "dispute_closed"; outcome: "won" | "lost"; dispute?: ProcessorDispute }
  /** A dispute changed without closing (evidence submitted): its record follows, the payment stays. */
  | { kind: "dispute_updated"; dispute: ProcessorDispute }
  /** One refund's state at the processor: settles a refund of ours that was left pending. */
  | { kind: "refund_settled"; refund: ProcessorRefund };

/** A verified processor event, reduced to what identifies the payment and what happened to it. */
export interface ProcessorEvent {
  id: string;
  type: string;
  /** Null for events the service does not act on: acknowledged and ignored. */
  action: ProcessorAction | null;
  checkoutId: string | null;
  paymentRef: string | null;
  /** The transaction id the processor carries for us (metadata): a hint, never proof. */
  transactionIdHint: string | null;
  /** Minor units and lowercase currency of the payment the event is about, when it says. */
  amount: number | null;
  currency: string | null;
}

/**
 * Why a refund is made, in the merchant API's words (its contract's three values); each adapter
 * says it in its processor's terms.
 */
export type RefundReason = "requested_by_customer" | "duplicate" | "fraudulent";

export interface RefundRequest {
  paymentRef: string;
  amount: number;
  reason: RefundReason | null;
  /** Our refund id, given to the processor so its events and lists name it. */
  refundId: string;
  transactionId: string;
  /** The same for every attempt of one refund, so the processor carries it out at most once. */
  idempotencyKey: string;
}

/** What a processor allows, which the service's settings and rules must fit. */
export interface ProcessorLimits {
  /** The shortest and longest lifetime a checkout may be given, in seconds. */
  checkoutLifetimeSeconds: { min: number; max: number };
  /** How long the processor remembers an idempotency key: past it, a key proves nothing. */
  idempotencyKeyLifetimeMs: number;
}

export interface ProcessorAdapter {
  /** The name payments carry in their `processor` column and the intake path carries. */
  readonly name: ProcessorName;
  readonly limits: ProcessorLimits;
  /**
   * What the processor must tell before it can take payments (Square: its location's currency).
   * Resolves once known; rejects when the processor refuses the settings. Absent: ready at once.
   */
  start?(): Promise<void>;
  /** Whether the processor takes payments in this currency (lowercase ISO 4217). */
  takes(currency: Currency): boolean;
  /**
   * Opens a checkout. Throws ProcessorRefusedError for a definite refusal (nothing opened),
   * ProcessorUnavailableError when the outcome is unknown (one may have been opened).
   */
  createCheckout(request: CheckoutRequest, signal?: AbortSignal): Promise<Checkout>;
  /** Throws CheckoutNotFoundError when the processor has no such checkout. */
  lookUpCheckout(checkoutId: string, signal?: AbortSignal): Promise<Checkout>;
  /**
   * Whether this processor payment, paid or declined, was tried through this checkout: what proves
   * an event about a payment we never stored is about our checkout. False when either is unknown.
   */
  triedThrough(checkoutId: string, paymentRef: string, signal?: AbortSignal): Promise<boolean>;
  /** Every checkout the processor opened in [since, until), by its creation time. */
  listCheckouts(window: { since: Date; until: Date }, signal?: AbortSignal): Promise<ListedCheckout[]>;
  /** Closes an open checkout; one already finished or expired is returned as it is. */
  expireCheckout(checkoutId: string, signal?: AbortSignal): Promise<Checkout>;
  /** Null when the processor has no such payment. */
  lookUpPayment(paymentRef: string, signal?: AbortSignal): Promise<ProcessorPayment | null>;
  /** The transaction id a processor payment carries; null when there is no such payment. */
  transactionIdOf(paymentRef: string, signal?: AbortSignal): Promise<string | null>;
  /**
   * Asks for a refund. Resolves when the processor accepted it; throws ProcessorRefusedError
   * when it definitely refused, ProcessorUnavailableError when the outcome is unknown. How long the
   * merchant waits is the caller's rule: it stops listening when it must.
   */
  refund(request: RefundRequest, signal?: AbortSignal): Promise<ProcessorRefund>;
  lookUpRefund(processorRefundId: string, signal?: AbortSignal): Promise<ProcessorRefund | null>;
  /** Null when the processor has no such dispute. */
  lookUpDispute(disputeRef: string, signal?: AbortSignal): Promise<ProcessorDispute | null>;
  /**
   * Files the merchant's evidence, and submits it when asked; the dispute as it then stands. Throws
   * ProcessorRefusedError for a definite refusal, ProcessorUnavailableError when the outcome is
   * unknown: it may have been filed, and only a later read says.
   */
  sendDisputeEvidence(request: DisputeEvidenceRequest, signal?: AbortSignal): Promise<ProcessorDispute>;
  /** Concedes the dispute; throws as `sendDisputeEvidence` does. */
  acceptDispute(disputeRef: string, signal?: AbortSignal): Promise<ProcessorDispute>;
  /** Verifies the signature over the raw body and reads the event; throws InvalidEventError. */
  parseEvent(
    rawBody: Buffer,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): ProcessorEvent;
}

/** Why a processor's answer is unknown: what failover and its metric name. */
export type UnknownOutcome = "timeout" | "connection" | "server_error" | "rate_limited";

/**
 * How a processor's HTTP status reads. A 4xx other than 409 (a concurrent request with the key) and
 * 429 (not carried out, but asking later is right) is a definite refusal; a 5xx, a 409 or a 429
 * says nothing of what the processor did. No status at all: the connection failed.
 */
export function outcomeOfStatus(status: number | undefined): "refused" | UnknownOutcome {
  if (status === undefined) return "connection";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server_error";
  if (status >= 400 && status !== 409) return "refused";
  return "connection";
}

/** A money call's failure (a create, a refund) as the neutral error its outcome calls for. */
export function moneyCallError(what: string, error: unknown, outcome: "refused" | UnknownOutcome): Error {
  const reason = (error as Error).message;
  if (outcome === "refused") {
    return new ProcessorRefusedError(`processor refused the ${what}: ${reason}`, { cause: error });
  }
  return new ProcessorUnavailableError(`${what} outcome unknown: ${reason}`, { cause: error, outcome });
}

/** An event's fields when the service does not act on it: acknowledged and ignored. */
export const NOT_ACTED_ON: Omit<ProcessorEvent, "id" | "type"> = {
  action: null,
  checkoutId: null,
  paymentRef: null,
  transactionIdHint: null,
  amount: null,
  currency: null,
};

/** The processor could not be asked, or did not answer: what it did is unknown. */
export class ProcessorUnavailableError extends Error {
  override readonly name = "ProcessorUnavailableError";

  constructor(message: string, options?: { cause?: unknown; outcome?: UnknownOutcome }) {
    super(message, options);
    this.outcome = options?.outcome ?? "connection";
  }

  readonly outcome: UnknownOutcome;
}

/** The processor answered with a definite refusal: nothing was carried out. */
export class ProcessorRefusedError extends Error {
  override readonly name = "ProcessorRefusedError";
}

/** The processor has no checkout with this id (forgotten, or never ours). */
export class CheckoutNotFoundError extends Error {
  override readonly name = "CheckoutNotFoundError";
}

/** A processor event whose signature or shape does not check out. */
export class InvalidEventError extends Error {
  override readonly name = "InvalidEventError";
}
