// Statements of the processor-event path: replay protection and finding the payment an event names.

import type { Queryable } from "../../platform/db/database.ts";
import { deleteOldestBefore } from "../../platform/db/prune.ts";
import type { PaymentRow } from "../core/store.ts";

/**
 * Records a processor event by its processor and id; false when it was seen before (a replay).
 * Runs in the caller's transaction: the table is partitioned by week, so no unique key spans the
 * weeks; the lock on the event's id makes a replay arriving meanwhile wait, then see this one.
 */
export async function recordProcessorEvent(
  q: Queryable,
  event: { processor: string; id: string; type: string; paymentId: string | null; mismatch: string | null },
): Promise<boolean> {
  await q.query("SELECT pg_advisory_xact_lock(hashtext($1))", [
    `processor event ${event.processor} ${event.id}`,
  ]);
  const rows = await q.query(
    `INSERT INTO processor_events (processor, id, type, payment_id, mismatch)
     SELECT $1, $2, $3, $4, $5
     WHERE NOT EXISTS (SELECT 1 FROM processor_events WHERE processor = $1 AND id = $2) RETURNING id`,
    [event.processor, event.id, event.type, event.paymentId, event.mismatch],
  );
  return rows.length === 1;
}

/** How a processor names one of our payments: its checkout, or the payment made through it. */
export type ProcessorReference = "checkout" | "payment";

const LOOKUP_BY_REFERENCE: Record<ProcessorReference, string> = {
  checkout: "SELECT * FROM payments WHERE processor_checkout_id = $2 AND processor = $1 LIMIT 1",
  payment: "SELECT * FROM payments WHERE processor_payment_id = $2 AND processor = $1 LIMIT 1",
};

export async function findPaymentAtProcessor(
  q: Queryable,
  processor: string,
  reference: ProcessorReference,
  value: string,
): Promise<PaymentRow | undefined> {
  const [row] = await q.query<PaymentRow>(LOOKUP_BY_REFERENCE[reference], [processor, value]);
  return row;
}

/** One batch of processor events received before `before`, oldest first. */
export const deleteProcessorEventsBefore = (q: Queryable, before: Date, limit: number): Promise<number> =>
  deleteOldestBefore(
    q,
    { table: "processor_events", key: "processor, id, received_at", time: "received_at" },
    before,
    limit,
  );
