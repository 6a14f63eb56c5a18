// One way to ask a processor: within a deadline that stops the call (the SDK is handed the signal,
// so it neither goes on waiting nor retries past it), and one reading of what came back. An answer
// not received is not a "no": it is unknown, with why.
import {
  CheckoutNotFoundError,
  ProcessorRefusedError,
  ProcessorUnavailableError,
  type UnknownOutcome,
} from "./port.ts";

export type CallOutcome<T> =
  | { kind: "ok"; value: T }
  /** A definite no: nothing was carried out. `missing`: the processor has no such checkout. */
  | { kind: "refused"; error: Error; missing: boolean }
  /** Maybe carried out: ask again under the same key before telling anyone it failed. */
  | { kind: "unknown"; reason: UnknownOutcome; error: Error };

/** The call's own deadline ran out: the processor may have carried it out. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
}

/**
 * Calls `call` with a signal that aborts at `deadlineMs` or when `signal` aborts, whichever is
 * first. An adapter that ignores the signal is not waited for past the deadline either.
 */
export async function callProcessor<T>(
  call: (signal: AbortSignal) => Promise<T>,
  options: { deadlineMs: number; signal?: AbortSignal | undefined },
): Promise<CallOutcome<T>> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DeadlineExceededError(`no answer within ${options.deadlineMs} ms`)),
    Math.max(0, options.deadlineMs),
  );
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const aborted = new Promise<never>((_resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  try {
    const started = call(signal);
    // An answer after the deadline is dropped: the caller has already been told "unknown".
    started.catch(() => {});
    return { kind: "ok", value: await Promise.race([started, aborted]) };
  } catch (error) {
    return outcomeOfError(error, signal);
  } finally {
    clearTimeout(timer);
  }
}

/** What a failed call means: refused, or unknown with why. */
export function outcomeOfError(error: unknown, signal?: AbortSignal): CallOutcome<never> {
  if (error instanceof ProcessorRefusedError || error instanceof CheckoutNotFoundError) {
    return { kind: "refused", error, missing: error instanceof CheckoutNotFoundError };
  }
  if (signal?.aborted || error instanceof DeadlineExceededError) {
    const reason = signal?.reason instanceof Error ? signal.reason : (error as Error);
    return { kind: "unknown", reason: "timeout", error: reason };
  }
  if (error instanceof ProcessorUnavailableError) return { kind: "unknown", reason: error.outcome, error };
  // Anything else (a bug, a lost connection the adapter did not recognise) proves nothing either.
  return {
    kind: "unknown",
    reason: "connection",
    error: error instanceof Error ? error : new Error(String(error)),
  };
}

/**
 * The longest a background look-up (a worker asking after a refund, a checkout, a payment) is
 * given: past the SDK's own timeouts and retries, so only a processor that never answers hits it.
 */
export const LOOKUP_DEADLINE_MS = 60_000;
