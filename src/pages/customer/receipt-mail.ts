// A customer's receipt e-mail: a plain-text part and an HTML one in the merchant's name, colour and
// logo (carried in the mail, never fetched), with what was bought, the date in words, a short
// reference, and replies going to the merchant when it gave an address.
import type { ReceiptComposer } from "../../payments/receipts/sender.ts";
import type { ClaimedReceipt } from "../../payments/receipts/store.ts";
import { money } from "../../platform/format/money.ts";
import type { MailAttachment } from "../../platform/mail/mailer.ts";
import { DEFAULT_COLOR, inkOn } from "../kit/customer.ts";
import { html } from "../kit/html.ts";

export interface ReceiptSubjects {
  /** With {merchant} for the merchant's name. */
  paymentSubject: string;
  refundSubject: string;
}

/** Line breaks and other control characters would end a header: none reach a subject. */
const oneLine = (text: string) => text.replace(/\p{Cc}+/gu, " ").trim();

const DAY = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "long",
  year: "numeric",
  timeZone: "UTC",
});
const HOUR = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

/** "29 November 2026, 09:14 UTC": a date a customer reads without converting it. */
export const dateInWords = (date: Date): string => `${DAY.format(date)}, ${HOUR.format(date)} UTC`;

/** The transaction id's first eight characters, as a customer reads one out to the merchant. */
export const shortReference = (paymentId: string): string => paymentId.slice(0, 8).toUpperCase();

const LOGO_CID = "merchant-logo";

/** Composes each receipt with the installation's subjects. */
export const receiptComposer =
  (subjects: ReceiptSubjects): ReceiptComposer =>
  (receipt) => {
    const merchant = oneLine(receipt.merchant);
    const payment = receipt.kind === "payment";
    const subject = (payment ? subjects.paymentSubject : subjects.refundSubject).replaceAll(
      "{merchant}",
      merchant,
    );
    const item = receipt.link_name ?? receipt.description;
    const amount = money(receipt.amount, receipt.currency);
    const when = dateInWords(receipt.created_at);
    const reference = shortReference(receipt.payment_id);
    const closing = payment
      ? "Thank you for your payment. Keep this e-mail as your receipt."
      : "The refund goes back to the card you paid with; your bank may take a few days to show it.";
    const replies = receipt.reply_to ? `Questions? Reply to this e-mail to reach ${merchant}.` : null;
    const text = [
      `${payment ? "Payment received" : "Refund"}: ${amount}`,
      `Merchant: ${merchant}`,
      ...(item ? [`For: ${oneLine(item)}`] : []),
      `Date: ${when}`,
      `Reference: ${reference}`,
      `Transaction: ${receipt.payment_id}`,
      "",
      closing,
      ...(replies ? [replies] : []),
    ].join("\n");
    const logo = logoAttachment(receipt);
    return {
      to: receipt.recipient,
      subject: oneLine(subject),
      text,
      html: receiptHtml(receipt, {
        merchant,
        item,
        amount,
        when,
        reference,
        closing,
        replies,
        logo: logo !== null,
      }),
      ...(receipt.reply_to && { replyTo: receipt.reply_to }),
      ...(logo && { attachments: [logo] }),
    };
  };

function logoAttachment(receipt: ClaimedReceipt): MailAttachment | null {
  if (!receipt.logo || !receipt.logo_type) return null;
  const extension = receipt.logo_type === "image/png" ? "png" : "jpg";
  return {
    filename: `logo.${extension}`,
    content: receipt.logo,
    contentType: receipt.logo_type,
    cid: LOGO_CID,
  };
}

/**
 * Tables and inline styles, as mail programs render them; every value goes through the escaping
 * template, the colour is #rrggbb (checked when stored).
 */
function receiptHtml(
  receipt: ClaimedReceipt,
  shown: {
    merchant: string;
    item: string | null;
    amount: string;
    when: string;
    reference: string;
    closing: string;
    replies: string | null;
    logo: boolean;
  },
): string {
  const color = receipt.brand_color ?? DEFAULT_COLOR;
  const ink = inkOn(color);
  const row = (label: string, value: string) =>
    html`<tr><td style="padding:6px 0;color:#5b6470">${label}</td><td style="padding:6px 0;text-align:right">${value}</td></tr>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${receipt.kind === "payment" ? "Receipt" : "Refund"} from ${shown.merchant}</title></head>
<body style="margin:0;padding:0;background:#f6f7f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f6f7f9"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:480px;background:#ffffff;border:1px solid #d9dee4;border-radius:10px">
<tr><td style="background:${color};color:${ink};padding:16px 20px;border-radius:10px 10px 0 0;font-size:18px;font-weight:700">${shown.logo ? html`<img src="cid:${LOGO_CID}" alt="" height="36" style="vertical-align:middle;max-height:36px;background:#ffffff;border-radius:4px;padding:2px;margin-right:10px">` : ""}${shown.merchant}</td></tr>
<tr><td style="padding:20px">
<p style="margin:0 0 4px;color:#5b6470">${receipt.kind === "payment" ? "Payment received" : "Refund"}</p>
<p style="margin:0 0 16px;font-size:28px;font-weight:700">${shown.amount}</p>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-top:1px solid #d9dee4;font-size:15px">
${shown.item ? row("For", shown.item) : ""}${row("Date", shown.when)}${row("Reference", shown.reference)}
</table>
<p style="margin:16px 0 0">${shown.closing}</p>
${shown.replies ? html`<p style="margin:8px 0 0">${shown.replies}</p>` : ""}
<p style="margin:16px 0 0;font-size:12px;color:#5b6470">Transaction ${receipt.payment_id}</p>
</td></tr></table></td></tr></table></body></html>`.text;
}
