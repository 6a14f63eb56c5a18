import type { Queryable } from "../../platform/db/database.ts";
import { insertReceipt } from "./store.ts";

/** What a status change tells the receipts outbox: the event it caused and its payment. */
export interface ReceiptOccasion {
  eventId: string;
  event: string;
  paymentId: string;
  groupId: string;
  customerEmail: string | null;
  currency: string;
  /** What the customer paid, for payment.completed. */
  amount: number;
  /** What this change refunded, for payment.refunded. */
  refunded: number;
  /** The group's receipts switch, read with the change. */
  receiptsOn: boolean;
}

/**
 * Writes a receipt in the transaction of the change it tells of (docs/api.md, "Branding"): one
 * when a payment succeeds and one per refund, when the group sends receipts and the customer left
 * an address.
 */
export async function enqueueReceipt(tx: Queryable, occasion: ReceiptOccasion): Promise<void> {
  if (!occasion.receiptsOn || !occasion.customerEmail) return;
  const kind =
    occasion.event === "payment.completed"
      ? "payment"
      : occasion.event === "payment.refunded"
        ? "refund"
        : null;
  if (!kind) return;
  const amount = kind === "payment" ? occasion.amount : occasion.refunded;
  if (amount <= 0) return;
  await insertReceipt(tx, {
    eventId: occasion.eventId,
    paymentId: occasion.paymentId,
    groupId: occasion.groupId,
    kind,
    recipient: occasion.customerEmail,
    amount,
    currency: occasion.currency,
  });
}
