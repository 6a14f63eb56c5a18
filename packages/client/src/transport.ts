import { CheckoutError } from "./errors.js";

export interface TransportOptions {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
}

interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string; details?: unknown };
}

/** Statuses worth another try: rate limited, or the service failed in a way a retry can mend. */
const RETRIED = new Set([429, 500, 503]);
const MAX_WAIT_MS = 30_000;
/**
 * How long a call waits, in all, while the service says the request under its Idempotency-Key
 * is still running: a create answers within 15 s and a refund within 10 s, whatever the processor.
 */
const IN_PROGRESS_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wait before retry `attempt` (0-based): Retry-After when given, else exponential with jitter. */
function backoff(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base / 2 + Math.random() * (base / 2);
}

/**
 * Sends one request. A request the service cannot carry out twice (a read, or a create or refund
 * under its Idempotency-Key, the same on every try) is retried after a lost connection, 429, 500
 * or 503, up to `maxRetries` times, and waited for while the service answers
 * IDEMPOTENCY_IN_PROGRESS. Any other request (resend, recover, cancel) is retried only after 429,
 * which the service answers before doing anything: a lost answer is no proof that nothing happened.
 */
export async function send(
  options: TransportOptions,
  method: string,
  path: string,
  request: { body?: unknown; idempotencyKey?: string | undefined } = {},
): Promise<{ data: unknown; headers: Headers }> {
  const url = `${options.baseUrl.replace(/\/+$/, "")}${path}`;
  const headers: Record<string, string> = {
    "x-public-key": options.publicKey,
    "x-secret-key": options.secretKey,
    accept: "application/json",
  };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (request.idempotencyKey) headers["idempotency-key"] = request.idempotencyKey;
  const body = request.body === undefined ? null : JSON.stringify(request.body);
  const repeatable = method === "GET" || Boolean(request.idempotencyKey);
  /** Said on every error of a keyed call: retrying with this key can never do the work twice. */
  const key = request.idempotencyKey || undefined;
  let waitedInProgressMs = 0;

  for (let attempt = 0; ; attempt++) {
    const retriesLeft = attempt < options.maxRetries;
    let response: Response;
    try {
      response = await options.fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      if (repeatable && retriesLeft) {
        await sleep(backoff(attempt, null));
        continue;
      }
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new CheckoutError(0, "CONNECTION_ERROR", `No answer from ${options.baseUrl}: ${reason}`, {
        idempotencyKey: key,
      });
    }
    if (RETRIED.has(response.status) && retriesLeft && (repeatable || response.status === 429)) {
      await response.body?.cancel();
      await sleep(backoff(attempt, response.headers.get("retry-after")));
      continue;
    }
    const requestId = response.headers.get("x-request-id") ?? undefined;
    const text = await response.text();
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      throw new CheckoutError(
        response.status,
        "INVALID_RESPONSE",
        `${method} ${path}: not JSON (${response.status})`,
        {
          requestId,
          idempotencyKey: key,
        },
      );
    }
    const code = envelope.error?.code;
    if (code === "IDEMPOTENCY_IN_PROGRESS" && key && options.maxRetries > 0) {
      const waitMs = backoff(attempt, response.headers.get("retry-after"));
      if (waitedInProgressMs + waitMs <= IN_PROGRESS_WAIT_MS) {
        waitedInProgressMs += waitMs;
        await sleep(waitMs);
        attempt -= 1; // the same request, still running: no retry of the budget is spent
        continue;
      }
    }
    if (!response.ok || envelope.success !== true) {
      throw new CheckoutError(
        response.status,
        code ?? "UNKNOWN_ERROR",
        envelope.error?.message ?? `${method} ${path} answered ${response.status}`,
        { requestId, details: envelope.error?.details, idempotencyKey: key },
      );
    }
    return { data: envelope.data, headers: response.headers };
  }
}
