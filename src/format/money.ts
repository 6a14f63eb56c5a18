// Where a comma goes between groups of three digits. toLocaleString does the same at four times
// the cost, and a page of payments calls this twice a row.
const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

/**
 * Cents as people read an amount, in major units with the currency: 123456 usd → "1,234.56 USD".
 * The one way every page, e-mail and CLI line shows money.
 */
export function money(cents: number, currency: string): string {
  const sign = cents < 0 ? "-" : "";
  const whole = String(Math.floor(Math.abs(cents) / 100)).replace(THOUSANDS, ",");
  const fraction = String(Math.abs(cents) % 100).padStart(2, "0");
  return `${sign}${whole}.${fraction} ${currency.toUpperCase()}`;
}
