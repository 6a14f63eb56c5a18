import { time } from "./format.ts";
import { type Html, html } from "./html.ts";

/** A stored word as people read it: "partially_refunded" → "Partially refunded". */
export function words(text: string): string {
  const spaced = text.replaceAll("_", " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** A status as a coloured badge; the stored value stays on it for scripts and tests. */
export const statusBadge = (status: string) =>
  html`<span class="badge ${status}" data-status="${status}">${words(status)}</span>`;

/**
 * A payment's status as a merchant reads it. "processing" is a checkout not paid yet (often not
 * even opened), which "Processing" made read as money on its way: "Incomplete", as processors'
 * own dashboards say.
 */
const PAYMENT_STATUS_WORDS: Readonly<Record<string, string>> = { processing: "Incomplete" };
const PAYMENT_STATUS_HINTS: Readonly<Record<string, string>> = {
  processing: "Not paid yet: the customer has not completed the checkout",
};

export const paymentStatusWord = (status: string): string => PAYMENT_STATUS_WORDS[status] ?? words(status);

/** A payment's status as a badge, in the merchant's words; the stored value stays on it. */
export const paymentStatusBadge = (status: string) => {
  const hint = PAYMENT_STATUS_HINTS[status];
  return html`<span class="badge ${status}" data-status="${status}"${hint ? html` title="${hint}"` : ""}>${paymentStatusWord(status)}</span>`;
};

const REASONS: Record<string, string> = {
  created: "Created: the processor opened its checkout",
  processor_error: "The processor refused to open a checkout",
  merchant_cancel: "Cancelled by the merchant",
  expiry_sweep: "The payment link expired",
  customer_return: "The customer came back, and the processor confirmed the payment",
};

/** Why a payment's status changed, from the reason its history stores. */
export function statusChangeReason(reason: string): Html {
  const [kind, id] = reason.split(/:(.*)/s) as [string, string | undefined];
  if (kind === "processor_event" && id) return html`The processor's event <code>${id}</code>`;
  if (kind === "reconciliation" && id) return html`Reconciliation run <code>${id}</code>`;
  return html`${REASONS[reason] ?? words(reason)}`;
}

/** One row of a payment's status history: when, from, to, and why. */
export const statusChangeRow = (change: {
  created_at: Date;
  from_status: string | null;
  to_status: string;
  reason: string;
}) =>
  html`<tr><td>${time(change.created_at)}</td><td>${change.from_status ? paymentStatusWord(change.from_status) : "—"}</td><td>${paymentStatusBadge(change.to_status)}</td><td>${statusChangeReason(change.reason)}</td></tr>`;

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bFxiOS\/(\d+)/, "Firefox"],
  [/\bCriOS\/(\d+)/, "Chrome"],
  [/\bHeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/\bChrom(?:e|ium)\/(\d+)/, "Chrome"],
  [/\bVersion\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/^curl\/(\d+)/, "curl"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** A session's browser as people name it: "Chrome 131 on Linux"; the raw string stays on hover. */
export function browserOf(userAgent: string): string {
  if (!userAgent) return "Unknown browser";
  const browser = BROWSERS.map(([pattern, name]) => [pattern.exec(userAgent), name] as const).find(
    ([match]) => match,
  );
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const named = browser
    ? `${browser[1]} ${browser[0]?.[1]}`
    : (userAgent.split(/[\s/]/)[0] ?? "Unknown browser");
  return system ? `${named} on ${system}` : named;
}
