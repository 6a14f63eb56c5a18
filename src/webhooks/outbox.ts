import { randomUUID } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import type { PaymentRow } from "../payments/payment.ts";
import { buildPayload, EVENT_FOR_STATUS } from "./events.ts";

export const OUTBOX_CHANNEL = "webhook_outbox";

/** Fairness key: deliveries to one receiver share a budget so it cannot starve the others. */
export function destinationOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

/**
 * Records the event a status change causes and, when the payment has a usable webhookUrl, its
 * delivery. Runs in the transaction of the change, so neither exists without the other.
 */
export async function enqueueWebhookEvent(tx: Queryable, payment: PaymentRow): Promise<boolean> {
  const event = EVENT_FOR_STATUS[payment.status];
  if (!event) return false;
  const eventId = randomUUID();
  const payload = JSON.stringify(buildPayload(event, payment));
  if (!payment.webhook_url) {
    // Kept for the merchant's event feed even though there is nowhere to deliver it.
    await tx.query(
      `INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload) VALUES ($1, $2, $3, $4, $5, $6)`,
      [eventId, payment.id, payment.group_id, event, payment.status, payload],
    );
    return false;
  }
  // One statement: the event, its delivery, and the NOTIFY that wakes dispatchers on commit.
  await tx.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
     ), delivery AS (
       INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
       SELECT $7, id, $8, $9, 'pending' FROM event
     )
     SELECT pg_notify($10, '')`,
    [
      eventId,
      payment.id,
      payment.group_id,
      event,
      payment.status,
      payload,
      randomUUID(),
      payment.webhook_url,
      destinationOf(payment.webhook_url),
      OUTBOX_CHANNEL,
    ],
  );
  return true;
}
