import type { Database } from "../../platform/db/database.ts";
import { money } from "../../platform/format/money.ts";
import { utcToTheSecond } from "../../platform/format/time.ts";
import type { Mailer } from "../../platform/mail/mailer.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type ClaimedReceipt, claimDueReceipts, markReceiptSent, markReceiptUnsent } from "./store.ts";

export interface ReceiptSettings {
  /** With {merchant} for the merchant's name. */
  paymentSubject: string;
  refundSubject: string;
}

/** How often due receipts are looked for (a `workers` instance). */
export const RECEIPT_SEND_INTERVAL_MS = 500;
const BATCH = 20;
const ATTEMPTS = 5;
const RETRY_MS = [5_000, 30_000, 120_000, 600_000];

/** Line breaks and other control characters would end a header: none reach a subject. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, " ").trim();

/** The receipt's subject and text: plain text, so nothing in it is markup. */
export function receiptMessage(receipt: ClaimedReceipt, settings: ReceiptSettings) {
  const merchant = oneLine(receipt.merchant);
  const subject = (receipt.kind === "payment" ? settings.paymentSubject : settings.refundSubject).replaceAll(
    "{merchant}",
    merchant,
  );
  const what = receipt.kind === "payment" ? "Payment received" : "Refund";
  const text = [
    `${what}: ${money(receipt.amount, receipt.currency)}`,
    `Merchant: ${merchant}`,
    ...(receipt.link_name ? [`For: ${oneLine(receipt.link_name)}`] : []),
    `Transaction: ${receipt.payment_id}`,
    `Date: ${utcToTheSecond(receipt.created_at)}`,
    "",
    receipt.kind === "payment"
      ? "Thank you for your payment. Keep this e-mail as your receipt."
      : "The refund goes back to the card you paid with; your bank may take a few days to show it.",
  ].join("\n");
  return { subject: oneLine(subject), text };
}

/**
 * Sends the receipts the outbox holds, each at most once: a receipt is claimed before its mail
 * goes out, and only a refused connection (nothing was handed over) makes it due again.
 */
export class ReceiptSender {
  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    private readonly settings: ReceiptSettings,
    private readonly log: Logger,
  ) {}

  async sendDue(): Promise<number> {
    const due = await claimDueReceipts(this.db, BATCH);
    for (const receipt of due) await this.send(receipt);
    return due.length;
  }

  private async send(receipt: ClaimedReceipt): Promise<void> {
    try {
      await this.mailer.send({ to: receipt.recipient, ...receiptMessage(receipt, this.settings) });
      await markReceiptSent(this.db, receipt.event_id);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // Only a connection that never opened is known not to have delivered anything.
      const retry = code === "ECONNECTION" && receipt.attempts < ATTEMPTS;
      const retryInMs = retry ? (RETRY_MS[receipt.attempts - 1] ?? RETRY_MS.at(-1) ?? 600_000) : null;
      this.log.warn(
        { transactionId: receipt.payment_id, eventId: receipt.event_id, code, retry },
        "receipt e-mail not sent",
      );
      await markReceiptUnsent(this.db, receipt.event_id, (error as Error).message, retryInMs);
    }
  }
}
