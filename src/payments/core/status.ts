// The payment statuses, the one transition table, and the status sets every rule is written in.

export const PAYMENT_STATUSES = [
  "pending",
  "processing",
  "succeeded",
  "failed",
  "expired",
  "cancelled",
  "refunded",
  "partially_refunded",
  "disputed",
  "dispute_won",
  "dispute_lost",
] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Every status change in the service is checked against this table and made by one conditional
 * update statement, so two concurrent changes from one status can never both win.
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ["processing", "failed", "cancelled"],
  processing: ["succeeded", "failed", "expired", "cancelled"],
  // A declined card leaves the checkout page open: the customer may pay with another card.
  failed: ["succeeded"],
  succeeded: ["refunded", "partially_refunded", "disputed"],
  partially_refunded: ["partially_refunded", "refunded", "disputed"],
  refunded: ["disputed"],
  disputed: ["dispute_won", "dispute_lost"],
  dispute_won: ["partially_refunded", "refunded"],
  dispute_lost: [],
  expired: [],
  cancelled: [],
};

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The statuses a payment may move to `to` from, optionally narrowed to `within`. */
export function sourcesOf(to: PaymentStatus, within?: readonly PaymentStatus[]): PaymentStatus[] {
  return PAYMENT_STATUSES.filter(
    (from) => canTransition(from, to) && (within === undefined || within.includes(from)),
  );
}

/** The merchant may cancel only these (docs/api.md, "Payment statuses"). */
export const CANCELLABLE: readonly PaymentStatus[] = ["pending", "processing"];

/** Statuses that set completedAt; refunds and disputes keep the original time. */
export const FINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set([
  "succeeded",
  "failed",
  "cancelled",
  "expired",
]);

/**
 * Nothing more is expected of the customer or of the processor, but for a refund or a dispute
 * still to come: PII_RETENTION_DAYS counts from the last change into one of these. An open
 * dispute (`disputed`) is not among them.
 */
export const SETTLED_STATUSES: readonly PaymentStatus[] = PAYMENT_STATUSES.filter(
  (status) => status !== "pending" && status !== "processing" && status !== "disputed",
);

/** Money was taken: the customer has paid, whatever happened after. */
export const PAID_STATUSES: ReadonlySet<PaymentStatus> = new Set([
  "succeeded",
  "refunded",
  "partially_refunded",
  "disputed",
  "dispute_won",
  "dispute_lost",
]);

/** Nothing taken yet and the checkout page still accepts a card. */
export const NOT_YET_PAID: ReadonlySet<PaymentStatus> = new Set(["pending", "processing", "failed"]);

/** Closed by the merchant or the clock: money arriving now needs an operator. */
export const CLOSED_UNPAID: ReadonlySet<PaymentStatus> = new Set(["cancelled", "expired"]);

/** Refunds are asked for while the payment is in one of these. */
export const REFUNDABLE_STATUSES: readonly PaymentStatus[] = ["succeeded", "partially_refunded"];

export type Refunder = "merchant" | "operator";

/** Closed statuses a refunder may refund when the processor was paid anyway: the operator's job. */
export const closedRefundableBy = (refunder: Refunder): readonly PaymentStatus[] =>
  refunder === "operator" ? [...CLOSED_UNPAID] : [];

/**
 * What may still be refunded: the unreserved rest of a paid payment, and for an operator also of
 * a closed one the processor was paid for anyway (paid after cancel). The refunds store writes
 * the same rule as its conditional update.
 */
export function refundableAmount(
  payment: { status: PaymentStatus; amount: number; refund_reserved: number; paid_at_processor: boolean },
  refunder: Refunder,
): number {
  const open =
    REFUNDABLE_STATUSES.includes(payment.status) ||
    (payment.paid_at_processor && closedRefundableBy(refunder).includes(payment.status));
  return open ? payment.amount - payment.refund_reserved : 0;
}

/** The hosted link forwards to the processor while the payment is in one of these and unexpired. */
export const LINK_OPEN_STATUSES: ReadonlySet<PaymentStatus> = new Set(["processing", "failed", "cancelled"]);
