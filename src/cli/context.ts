// What every command shares: the global options, the clients they make, argument parsers, and
// how an answer is printed.
import { Checkout, CheckoutError } from "@checkout-service/client";
import { type Command, InvalidArgumentError } from "commander";
import { readAmount } from "../platform/format/money.ts";
import { ApiClient, CliError, cannotReach, notTheService } from "./api-client.ts";
import { type PrintOptions, print } from "./output.ts";

export interface GlobalOptions {
  url: string;
  json: boolean;
  token?: string;
  publicKey?: string;
  secretKey?: string;
}

export const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();
export const out =
  (command: Command, options: PrintOptions = {}) =>
  (data: unknown) =>
    print(data, globals(command).json, options);

/** --url: the service's http(s) address; a bare host:port is told what to write instead. */
export function serviceUrl(value: string): string {
  if (URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)) return value;
  // "localhost:5100" parses as a URL of the scheme "localhost:": no "//", no scheme meant.
  const hostAndPath = value.includes("//") ? value.slice(value.indexOf("//") + 2) : value;
  throw new InvalidArgumentError(`takes the service's http(s) address, e.g. http://${hostAndPath}`);
}

export const wholeNumber = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${what} takes a whole number`);
  return Number(value);
};

/** --amount: whole cents; "12.50" is answered with the cents it means in a currency of two decimals. */
export const cents = (value: string) => {
  if (/^\d+$/.test(value)) return Number(value);
  const reading = readAmount(value.replace(",", "."), "usd");
  if ("minor" in reading)
    throw new InvalidArgumentError(`takes cents, a whole number: ${reading.minor} for ${value}`);
  throw new InvalidArgumentError("takes cents, a whole number (1250 for 12.50)");
};

export const isoTime = (value: string) => {
  if (Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError("takes an ISO 8601 time, e.g. 2026-11-24T09:00:00Z");
  return value;
};

export function admin(command: Command): ApiClient {
  const { url, token = process.env.ADMIN_TOKEN } = globals(command);
  if (!token) throw new CliError("an admin token is required: --token or $ADMIN_TOKEN");
  return ApiClient.admin(url, token);
}

export function merchantKeys(command: Command): { publicKey: string; secretKey: string } {
  const options = globals(command);
  const publicKey = options.publicKey ?? process.env.PUBLIC_KEY;
  const secretKey = options.secretKey ?? process.env.SECRET_KEY;
  if (!publicKey || !secretKey) {
    throw new CliError(
      "merchant keys are required: --public-key and --secret-key, or $PUBLIC_KEY and $SECRET_KEY",
    );
  }
  return { publicKey, secretKey };
}

/** The typed client merchants use, with the keys given. */
export function merchantClient(command: Command, more: { maxRetries?: number } = {}): Checkout {
  return new Checkout({ baseUrl: globals(command).url, ...merchantKeys(command), ...more });
}

/**
 * The client's error in one line: what the service said, or, when something else answered, what
 * probably did.
 */
export function explained(error: CheckoutError, url: string): CliError {
  if (error.code === "CONNECTION_ERROR") {
    // The client says "No answer from URL: CODE".
    return cannotReach(url, /: ([A-Z_]+)$/.exec(error.message)?.[1] ?? "", error.message);
  }
  if (error.code === "UNKNOWN_ERROR" || error.code === "INVALID_RESPONSE")
    return notTheService(url, error.status);
  const unknownOutcome = error.status >= 500 || error.code === "IDEMPOTENCY_IN_PROGRESS";
  const key =
    unknownOutcome && error.idempotencyKey
      ? ` (retry safely with --idempotency-key ${error.idempotencyKey})`
      : "";
  return new CliError(`${error.status} ${error.code}: ${error.message}${key}`);
}

/** A merchant call through the typed client; its errors become one line. */
export async function asMerchant<T>(command: Command, call: (checkout: Checkout) => Promise<T>): Promise<T> {
  // One retry: a read, or a refund under its key, is safe to repeat; a person is waiting.
  const checkout = merchantClient(command, { maxRetries: 1 });
  try {
    return await call(checkout);
  } catch (error) {
    if (!(error instanceof CheckoutError)) throw error;
    throw explained(error, globals(command).url);
  }
}

/** Prints `data` as JSON with --json, else as the text made for people. */
export const show = (command: Command, data: unknown, text: string) =>
  globals(command).json ? out(command)(data) : process.stdout.write(`${text}\n`);
