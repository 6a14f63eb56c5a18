/**
 * A moment as people read it without a time zone of their own: "2026-11-24 09:00:05 UTC". The one
 * way pages (before their script names the viewer's zone), e-mails and CLI lines show a time.
 */
export function utcToTheSecond(moment: Date | string): string {
  const iso = typeof moment === "string" ? moment : moment.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
