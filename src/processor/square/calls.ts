// Calling Square through its SDK: what a failure means, and the options of one request.
import { SquareError, SquareTimeoutError } from "square";
import {
  CheckoutNotFoundError,
  outcomeOfStatus,
  ProcessorUnavailableError,
  type UnknownOutcome,
} from "../port.ts";

export const statusOf = (error: unknown): number | undefined =>
  error instanceof SquareError ? error.statusCode : undefined;

export const isMissing = (error: unknown): boolean => statusOf(error) === 404;

/** A definite refusal, or why a Square call's outcome is unknown. */
export function outcomeOf(error: unknown): "refused" | UnknownOutcome {
  if (error instanceof SquareTimeoutError) return "timeout";
  return outcomeOfStatus(statusOf(error));
}

export function unavailable(what: string, error: unknown): ProcessorUnavailableError {
  const outcome = outcomeOf(error);
  return new ProcessorUnavailableError(`processor ${what} failed: ${(error as Error).message}`, {
    cause: error,
    outcome: outcome === "refused" ? "connection" : outcome,
  });
}

/** The SDK's options of one request: the call's signal stops it, and the SDK's retries with it. */
export const requestOptions = (abortSignal: AbortSignal | undefined) => (abortSignal ? { abortSignal } : {});

/** Any failure to talk to Square, as the neutral unavailable error. */
export async function ask<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CheckoutNotFoundError) throw error;
    throw unavailable(what, error);
  }
}
