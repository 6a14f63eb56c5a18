import { html } from "./html.ts";

/** Cents as major units with the currency: 123456 usd → "1,234.56 USD". */
export function money(cents: number, currency: string): string {
  const sign = cents < 0 ? "-" : "";
  const whole = Math.floor(Math.abs(cents) / 100).toLocaleString("en-US");
  const fraction = String(Math.abs(cents) % 100).padStart(2, "0");
  return `${sign}${whole}.${fraction} ${currency.toUpperCase()}`;
}

/** "12.34" (or "12", "12.3") → 1234 cents, exactly; null when it is not such an amount. */
export function parseMajorUnits(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
}

const utcText = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** UTC without JavaScript; the page's script shows it in the viewer's zone, with UTC on hover. */
export const time = (date: Date | null | undefined) =>
  date ? html`<time datetime="${date.toISOString()}" title="${utcText(date)}">${utcText(date)}</time>` : "—";
