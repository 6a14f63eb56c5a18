import { utcToTheSecond } from "../../platform/format/time.ts";
import { html } from "./html.ts";

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
