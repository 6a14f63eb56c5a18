// The statements of e-mail receipts: written with the event they tell of, claimed once, sent once.
import type { Queryable } from "../../platform/db/database.ts";
import { deleteOldestBefore } from "../../platform/db/prune.ts";

export interface NewReceipt {
  eventId: string;
  paymentId: string;
  groupId: string;
  kind: "payment" | "refund";
  recipient: string;
  amount: number;
  currency: string;
}

/** A claimed receipt, with what its e-mail says. */
export interface ClaimedReceipt {
  event_id: string;
  payment_id: string;
  kind: "payment" | "refund";
  recipient: string;
  amount: number;
  currency: string;
  attempts: number;
  merchant: string;
  /** The payment link's name, for a payment made through one: what the customer bought. */
  link_name: string | null;
  /** The payment's description, as the merchant wrote it. */
  description: string | null;
  created_at: Date;
  /** The group's branding at sending time: #rrggbb or null, its logo, where replies go. */
  brand_color: string | null;
  logo: Buffer | null;
  logo_type: string | null;
  reply_to: string | null;
}

export async function insertReceipt(q: Queryable, receipt: NewReceipt): Promise<void> {
  // The event's id is the key: a receipt is written once per event whatever runs twice.
  await q.query(
    `INSERT INTO receipt_emails (event_id, payment_id, group_id, kind, recipient, amount, currency)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (event_id) DO NOTHING`,
    [
      receipt.eventId,
      receipt.paymentId,
      receipt.groupId,
      receipt.kind,
      receipt.recipient,
      receipt.amount,
      receipt.currency,
    ],
  );
}

/**
 * Up to `limit` due receipts, moved to `sending` in the same statement: from here on nobody else
 * takes them, and a crash before `markSent` leaves them unsent rather than sent twice.
 */
export async function claimDueReceipts(q: Queryable, limit: number): Promise<ClaimedReceipt[]> {
  const rows = await q.query<ClaimedReceipt>(
    `WITH due AS (
       SELECT event_id FROM receipt_emails
       WHERE state = 'pending' AND next_attempt_at <= now() AND recipient IS NOT NULL
       ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE receipt_emails r SET state = 'sending', attempts = r.attempts + 1
     FROM due, groups g
     WHERE r.event_id = due.event_id AND g.id = r.group_id
     RETURNING r.event_id, r.payment_id, r.kind, r.recipient, r.amount, r.currency, r.attempts, r.created_at,
       COALESCE(g.display_name, g.name) AS merchant, g.brand_color, g.logo, g.logo_type, g.reply_to,
       (SELECT l.name FROM payments p JOIN payment_links l ON l.id = p.payment_link_id WHERE p.id = r.payment_id)
         AS link_name,
       (SELECT p.description FROM payments p WHERE p.id = r.payment_id) AS description`,
    [limit],
  );
  return rows;
}

export async function markReceiptSent(q: Queryable, eventId: string): Promise<void> {
  await q.query("UPDATE receipt_emails SET state = 'sent', sent_at = now() WHERE event_id = $1", [eventId]);
}

/** Not sent: tried again after `retryInMs`, or given up (`retryInMs` null). */
export async function markReceiptUnsent(
  q: Queryable,
  eventId: string,
  error: string,
  retryInMs: number | null,
): Promise<void> {
  await q.query(
    `UPDATE receipt_emails SET
       state = CASE WHEN $3::bigint IS NULL THEN 'failed' ELSE 'pending' END,
       next_attempt_at = now() + make_interval(secs => COALESCE($3::bigint, 0) / 1000.0),
       last_error = $2
     WHERE event_id = $1`,
    [eventId, error.slice(0, 500), retryInMs],
  );
}

/**
 * An erased customer's receipts keep their amount and outcome, not the address; one not yet sent
 * is never sent (one being sent right now may still go out).
 */
export async function eraseReceiptRecipients(q: Queryable, paymentIds: readonly string[]): Promise<void> {
  await q.query(
    `UPDATE receipt_emails SET recipient = NULL,
       state = CASE WHEN state = 'pending' THEN 'failed' ELSE state END,
       last_error = CASE WHEN state = 'pending' THEN 'not sent: the customer was erased' ELSE last_error END
     WHERE event_id IN (SELECT id FROM webhook_events WHERE payment_id = ANY ($1::uuid[]))`,
    [paymentIds],
  );
}

/** One batch of receipts written before `before`, oldest first (EVENT_RETENTION_DAYS, as their events). */
export const deleteReceiptsBefore = (q: Queryable, before: Date, limit: number): Promise<number> =>
  deleteOldestBefore(q, { table: "receipt_emails", key: "event_id", time: "created_at" }, before, limit);
