// Money: amounts are integers in the currency's minor units end to end (1250 usd is 12.50 USD).
// This is the one place that knows how many digits each currency has after its point, reads an
// amount as a person types it, and shows one as people read it; pages, e-mails, the CLI and the
// payment links all go through it.

/** The currencies a payment may be in (ISO 4217, lowercase as stored and answered) and their exponents. */
export const EXPONENTS = { usd: 2, cad: 2 } as const satisfies Record<string, number>;

export type Currency = keyof typeof EXPONENTS;

export const CURRENCIES = Object.keys(EXPONENTS) as Currency[];

/** The JSON-schema pattern of a currency in any case, built from the list. */
export const CURRENCY_INPUT_PATTERN = `^(${CURRENCIES.map((code) =>
  [...code].map((letter) => `[${letter}${letter.toUpperCase()}]`).join(""),
).join("|")})$`;

/** A table of exponents by currency: EXPONENTS, or another for a test of a currency not yet listed. */
export type ExponentTable = Readonly<Record<string, number>>;

/** Digits after the point; a code not in the table (one a processor reported) is taken to have two. */
export function exponentOf(currency: string, table: ExponentTable = EXPONENTS): number {
  return table[currency.toLowerCase()] ?? 2;
}

// Where a comma goes between groups of three digits. toLocaleString does the same at four times
// the cost, and a page of payments calls this twice a row.
const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

function split(minor: number, exponent: number): { sign: string; whole: string; fraction: string } {
  const scale = 10 ** exponent;
  const magnitude = Math.abs(minor);
  return {
    sign: minor < 0 ? "-" : "",
    whole: String(Math.floor(magnitude / scale)),
    fraction: exponent === 0 ? "" : String(magnitude % scale).padStart(exponent, "0"),
  };
}

/**
 * An amount as people read it, in major units with the currency: 123456 usd → "1,234.56 USD".
 * The one way every page, e-mail and CLI line shows money.
 */
export function money(minor: number, currency: string, table: ExponentTable = EXPONENTS): string {
  const { sign, whole, fraction } = split(minor, exponentOf(currency, table));
  return `${sign}${whole.replace(THOUSANDS, ",")}${fraction ? `.${fraction}` : ""} ${currency.toUpperCase()}`;
}

/** An amount in major units as a person types it back, without grouping or currency: 1250 usd → "12.50". */
export function majorUnits(minor: number, currency: string, table: ExponentTable = EXPONENTS): string {
  const { sign, whole, fraction } = split(minor, exponentOf(currency, table));
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Why a text is not an amount. */
export type AmountProblem =
  | "empty"
  /** A minus sign: amounts are never negative. */
  | "negative"
  /** "12,50": a decimal comma, or a thousands separator? Everywhere here the point is a dot. */
  | "decimal-comma"
  /** More digits after the point than the currency has. */
  | "too-many-decimals"
  | "not-a-number";

export type AmountReading = { minor: number } | { problem: AmountProblem };

const WHOLE_DIGITS = 9;

/**
 * An amount typed in major units ("12", "12.5", "12.50") in minor units, exactly: the digits are
 * put together as text, never multiplied as a float. The one reading of a typed amount, on every
 * page and form.
 */
export function readAmount(text: string, currency: string, table: ExponentTable = EXPONENTS): AmountReading {
  const trimmed = text.trim();
  if (trimmed === "") return { problem: "empty" };
  if (trimmed.startsWith("-")) return { problem: "negative" };
  if (/^\d+,\d+$/.test(trimmed)) return { problem: "decimal-comma" };
  const match = /^(\d+)(?:\.(\d+))?$/.exec(trimmed);
  if (!match?.[1] || match[1].length > WHOLE_DIGITS) return { problem: "not-a-number" };
  const exponent = exponentOf(currency, table);
  const decimals = match[2] ?? "";
  if (decimals.length > exponent) return { problem: "too-many-decimals" };
  return { minor: Number(match[1]) * 10 ** exponent + Number(decimals.padEnd(exponent, "0") || "0") };
}
