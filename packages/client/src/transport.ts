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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wait before retry `attempt` (0-based): Retry-After when given, else exponential with jitter. */
function backoff(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base / 2 + Math.random() * (base / 2);
}

/**
 * Sends one request, retrying lost connections, 429 and 500/503 up to `maxRetries` times. Create
 * and refund calls carry an Idempotency-Key, the same on every retry, so a retry never pays twice.
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
      if (retriesLeft) {
        await sleep(backoff(attempt, null));
        continue;
      }
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new CheckoutError(0, "CONNECTION_ERROR", `No answer from ${options.baseUrl}: ${reason}`);
    }
    if (RETRIED.has(response.status) && retriesLeft) {
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
        requestId,
      );
    }
    if (!response.ok || envelope.success !== true) {
      throw new CheckoutError(
        response.status,
        envelope.error?.code ?? "UNKNOWN_ERROR",
        envelope.error?.message ?? `${method} ${path} answered ${response.status}`,
        requestId,
        envelope.error?.details,
      );
    }
    return { data: envelope.data, headers: response.headers };
  }
}
