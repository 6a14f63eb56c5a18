import type { Database } from "../../platform/db/database.ts";
import type { Mailer, MailMessage } from "../../platform/mail/mailer.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type ClaimedReceipt, claimDueReceipts, markReceiptSent, markReceiptUnsent } from "./store.ts";

/** How often due receipts are looked for (a `workers` instance). */
export const RECEIPT_SEND_INTERVAL_MS = 500;
const BATCH = 20;
const ATTEMPTS = 5;
const RETRY_MS = [5_000, 30_000, 120_000, 600_000];

/** What a receipt's e-mail says and looks like: the customer pages' business, in the merchant's branding. */
export type ReceiptComposer = (receipt: ClaimedReceipt) => MailMessage;

/**
 * Sends the receipts the outbox holds, each at most once: a receipt is claimed before its mail
 * goes out, and only a refused connection (nothing was handed over) makes it due again.
 */
export class ReceiptSender {
  constructor(
    private readonly db: Database,
    private readonly mailer: Mailer,
    private readonly compose: ReceiptComposer,
    private readonly log: Logger,
  ) {}

  async sendDue(): Promise<number> {
    const due = await claimDueReceipts(this.db, BATCH);
    for (const receipt of due) await this.send(receipt);
    return due.length;
  }

  private async send(receipt: ClaimedReceipt): Promise<void> {
    try {
      await this.mailer.send(this.compose(receipt));
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
