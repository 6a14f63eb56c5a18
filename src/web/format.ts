import { utcToTheSecond } from "../format/time.ts";
import { html } from "./html.ts";

/** "12.34" (or "12", "12.3") → 1234 cents, exactly; null when it is not such an amount. */
export function parseMajorUnits(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0"));
}

/**
 * UTC to the second without JavaScript; the page's script shows it in the viewer's zone, named,
 * with UTC on hover. Takes a Date, or its ISO 8601 UTC text as a listing reads it.
 */
export function time(date: Date | string | null | undefined) {
  if (!date) return "—";
  const iso = typeof date === "string" ? date : date.toISOString();
  const utc = utcToTheSecond(iso);
  return html`<time datetime="${iso}" title="${utc}">${utc}</time>`;
}
