// The payment row and the statements every use case shares: the conditional status change, the
// row lock, look-ups, and what the fact path writes besides a status (reconciliation items,
// refunds learnt from the processor).
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";
import type { Currency } from "../../platform/format/money.ts";
import type { ProcessorName } from "../../processor/port.ts";
import type { Metadata } from "./metadata.ts";
import type { PaymentStatus } from "./status.ts";

export interface PaymentRow {
  id: string;
  group_id: string;
  status: PaymentStatus;
  amount: number;
  currency: Currency;
  /** Null once the customer was erased (erased_at). */
  customer_email: string | null;
  customer_name: string | null;
  description: string | null;
  metadata: Metadata | null;
  success_url: string;
  cancel_url: string;
  webhook_url: string | null;
  dropped_webhook_host: string | null;
  /** successUrl or cancelUrl was refused by the unreachable-host rule: the customer goes to the fallback. */
  redirect_fallback: boolean;
  safe_site_id: string;
  safe_site_url: string;
  link_token: string;
  /** The adapter this payment lives at (ProcessorRegistry). */
  processor: ProcessorName;
  processor_checkout_id: string | null;
  processor_checkout_url: string | null;
  processor_payment_id: string | null;
  /** The processors its create passed over before this one, and why (docs/api.md, failover). */
  processor_failovers: { processor: ProcessorName; reason: string }[] | null;
  /** The payment link the customer paid through; null for payments made by the API. */
  payment_link_id: string | null;
  refunded_amount: number;
  /** Pending and succeeded refunds together: what may no longer be refunded. */
  refund_reserved: number;
  /** The processor took the money, whatever the status says (paid after cancel). */
  paid_at_processor: boolean;
  expiry_claimed_until: Date | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** When its customer was erased: e-mail, name, description and metadata are gone. */
  erased_at: Date | null;
}

export interface StatusUpdate {
  paymentId: string;
  to: PaymentStatus;
  /** Statuses the payment may be in for the change to apply. */
  allowedFrom: readonly PaymentStatus[];
  setsCompletedAt: boolean;
  /** The new status means the processor has the money. */
  paid: boolean;
  /** Why, for the status history: "merchant_cancel", "processor_event:evt_…", … */
  reason: string;
  /** Restricts the change to one merchant's payments. */
  groupId?: string | undefined;
  processorPaymentId?: string | null | undefined;
  refundedAmount?: number | undefined;
}

/**
 * The conditional status change: locks the row, changes it only from an allowed status, and
 * writes the history row, all in one statement. Undefined when nothing changed.
 */
export async function updatePaymentStatus(
  q: Queryable,
  update: StatusUpdate,
): Promise<StatusChange | undefined> {
  const [row] = await q.query<
    PaymentRow & {
      previous_status: PaymentStatus;
      previous_refunded: number;
      group_webhook_url: string | null;
      group_receipts: boolean;
    }
  >(
    `WITH previous AS (
       SELECT id, status, refunded_amount FROM payments WHERE id = $1 AND ($8::uuid IS NULL OR group_id = $8)
       FOR UPDATE
     ), changed AS (
       UPDATE payments p SET
         status = $2,
         updated_at = now(),
         completed_at = CASE WHEN $3::boolean THEN now() ELSE p.completed_at END,
         paid_at_processor = p.paid_at_processor OR $5::boolean,
         processor_payment_id = COALESCE($6, p.processor_payment_id),
         refunded_amount = COALESCE($7, p.refunded_amount)
       FROM previous
       WHERE p.id = previous.id AND previous.status = ANY($4::text[])
       RETURNING p.*, previous.status AS previous_status, previous.refunded_amount AS previous_refunded
     ), history AS (
       INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason)
       SELECT id, previous_status, status, $9 FROM changed
     )
     -- Where the group's events go when the payment names no webhookUrl: read with the change.
     SELECT changed.*, groups.webhook_delivery_url AS group_webhook_url, groups.receipts AS group_receipts
     FROM changed JOIN groups ON groups.id = changed.group_id`,
    [
      update.paymentId,
      update.to,
      update.setsCompletedAt,
      update.allowedFrom,
      update.paid,
      update.processorPaymentId ?? null,
      update.refundedAmount ?? null,
      update.groupId ?? null,
      update.reason,
    ],
  );
  if (!row) return undefined;
  const {
    previous_status: from,
    previous_refunded: previousRefunded,
    group_webhook_url: groupWebhookUrl,
    group_receipts: groupReceipts,
    ...payment
  } = row;
  return {
    payment,
    from,
    refunded: payment.refunded_amount - Number(previousRefunded),
    groupWebhookUrl,
    groupReceipts,
  };
}

/** A status change as made, with what its event and receipt need of the group. */
export interface StatusChange {
  payment: PaymentRow;
  from: PaymentStatus;
  /** What this change added to the refunded amount. */
  refunded: number;
  /** Where the group's events go when the payment names no webhookUrl (its delivery URL). */
  groupWebhookUrl: string | null;
  /** The group's receipts switch. */
  groupReceipts: boolean;
}

/** The payment, locked until the transaction ends. */
export async function lockPayment(tx: Queryable, paymentId: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>("SELECT * FROM payments WHERE id = $1 FOR UPDATE", [paymentId]);
  return row;
}

/** What the processor did to a payment closed unpaid: it was paid, and perhaps refunded. */
export async function recordMoneyOnClosed(
  q: Queryable,
  paymentId: string,
  change: { processorPaymentId: string | null; refundedAmount: number | null },
): Promise<void> {
  await q.query(
    `UPDATE payments SET paid_at_processor = true, updated_at = now(),
       processor_payment_id = COALESCE($2, processor_payment_id),
       refunded_amount = GREATEST(refunded_amount, COALESCE($3, 0))
     WHERE id = $1`,
    [paymentId, change.processorPaymentId, change.refundedAmount],
  );
}

export type ReconciliationItemKind =
  | "paid_after_cancel"
  | "paid_after_expiry"
  | "disputed_after_close"
  | "checkout_missing"
  | "processor_mismatch"
  | "drift"
  /** Money taken on a checkout a create abandoned: refunded in full by the operator. */
  | "orphan_checkout_paid"
  /** Money taken on a checkout whose payment the books lost: refunded in full by the operator. */
  | "unbooked_payment";

/**
 * Puts a payment in front of the operator for one cause. A cause already open for the payment is
 * not raised twice; false then.
 */
export async function openReconciliationItem(
  q: Queryable,
  item: {
    paymentId: string | null;
    kind: ReconciliationItemKind;
    detail: string;
    processorEventId?: string | undefined;
  },
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO reconciliation_items (payment_id, kind, detail, processor_event_id)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (payment_id, kind) WHERE resolved_at IS NULL AND kind <> 'processor_mismatch' DO NOTHING
     RETURNING id`,
    [item.paymentId, item.kind, item.detail, item.processorEventId ?? null],
  );
  return rows.length === 1;
}

/**
 * After the processor reports a cumulative refunded total: whatever our own pending and
 * succeeded refunds do not account for was refunded at the processor directly. It is recorded as
 * such, and reserved, so the API never refunds it again.
 */
export async function recordProcessorRefunds(
  q: Queryable,
  payment: { id: string; groupId: string; currency: Currency },
  refundedTotal: number,
  refundId: string,
): Promise<void> {
  await q.query(
    `WITH known AS (
       SELECT COALESCE(sum(amount), 0)::int AS total FROM refunds
       WHERE payment_id = $1 AND status IN ('pending', 'succeeded')
     ), learnt AS (
       INSERT INTO refunds (id, payment_id, group_id, amount, currency, status, requested_by)
       SELECT $4, $1, $2, $5 - known.total, $3, 'succeeded', 'processor' FROM known WHERE $5 > known.total
       RETURNING amount
     )
     UPDATE payments SET refund_reserved = LEAST(amount, GREATEST(refund_reserved, $5)) WHERE id = $1`,
    [payment.id, payment.groupId, payment.currency, refundId, refundedTotal],
  );
}

export async function findPayment(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>("SELECT * FROM payments WHERE id = $1 AND group_id = $2", [
    id,
    groupId,
  ]);
  return row;
}

/** The columns the API's payment resource shows (src/payments/resource.ts), no more. */
export const RESOURCE_FIELDS = [
  "id",
  "status",
  "amount",
  "currency",
  "customer_email",
  "description",
  "metadata",
  "processor_checkout_id",
  "processor_payment_id",
  "created_at",
  "completed_at",
  "refunded_amount",
  "paid_at_processor",
  "processor",
  "payment_link_id",
  "erased_at",
  "redirect_fallback",
] as const satisfies readonly (keyof PaymentRow)[];

export const RESOURCE_COLUMNS = RESOURCE_FIELDS.join(", ");

export type PaymentResourceRow = Pick<PaymentRow, (typeof RESOURCE_FIELDS)[number]>;

const FIND_PAYMENT_RESOURCE = prepared(
  `SELECT ${RESOURCE_COLUMNS} FROM payments WHERE id = $1 AND group_id = $2`,
);

/** GET /api/v1/payments/:id reads only what it answers: fewer columns to send and parse. */
export async function findPaymentResource(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<PaymentResourceRow | undefined> {
  const [row] = await q.query<PaymentResourceRow>(FIND_PAYMENT_RESOURCE, [id, groupId]);
  return row;
}

export async function findPaymentById(q: Queryable, id: string): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>("SELECT * FROM payments WHERE id = $1", [id]);
  return row;
}

export async function findPaymentByLinkToken(q: Queryable, token: string): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>("SELECT * FROM payments WHERE link_token = $1", [token]);
  return row;
}
