// Calling Stripe through its SDK: what a failure means, and a call without the SDK's stack capture.
import Stripe from "stripe";
import {
  CheckoutNotFoundError,
  outcomeOfStatus,
  ProcessorUnavailableError,
  type UnknownOutcome,
} from "../port.ts";
import { requestSignal } from "./undici-http-client.ts";

/** Stripe's "no such object": 404 resource_missing. */
export const isMissing = (error: unknown): boolean =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404;

/** A definite refusal, or why a Stripe call's outcome is unknown. */
export function outcomeOf(error: unknown): "refused" | UnknownOutcome {
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return (error.detail as { code?: string } | undefined)?.code === Stripe.HttpClient.TIMEOUT_ERROR_CODE
      ? "timeout"
      : "connection";
  }
  if (!(error instanceof Stripe.errors.StripeError)) return "connection";
  return outcomeOfStatus(error.statusCode);
}

/**
 * Starts an SDK call with no stack frames to capture. The SDK records its caller's stack on every
 * request, formatted at once, only to append it to its own errors; that was 5 % of a create's CPU.
 * Our errors carry the SDK's as their cause, and our own stack is taken outside this window.
 */
export function withoutCallSiteStack<T>(call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // The signal reaches every request of the call, retries included, through the HTTP client.
    return signal ? requestSignal.run(signal, call) : call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Any failure to talk to the processor, as the neutral unavailable error. */
export async function ask<T>(
  what: string,
  call: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  try {
    return await withoutCallSiteStack(call, signal);
  } catch (error) {
    if (error instanceof CheckoutNotFoundError) throw error;
    const outcome = outcomeOf(error);
    throw new ProcessorUnavailableError(`processor ${what} failed: ${(error as Error).message}`, {
      cause: error,
      outcome: outcome === "refused" ? "connection" : outcome,
    });
  }
}
