/** The currencies a payment may be in, lowercase as stored and answered; input is any case. */
export const CURRENCIES = ["usd", "cad"] as const;

export type Currency = (typeof CURRENCIES)[number];

/** The JSON-schema pattern of a currency in any case, built from the list. */
export const CURRENCY_INPUT_PATTERN = `^(${CURRENCIES.map((code) =>
  [...code].map((letter) => `[${letter}${letter.toUpperCase()}]`).join(""),
).join("|")})$`;
