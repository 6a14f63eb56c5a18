import { CheckoutError } from "./errors.js";
import type { components } from "./generated/api.js";
import type { TransportOptions } from "./transport.js";

type WebhookPayload = components["schemas"]["WebhookPayload"];

/** One event of the group's stream: the same id, name and body as its webhook. */
export interface StreamedEvent {
  /** The eventId, which is also the webhook's `webhook-id`. */
  id: string;
  event: WebhookPayload["event"];
  data: WebhookPayload;
}

export interface EventStreamOptions {
  /** Start just after this event (one your code handled last); without it the stream starts now. */
  lastEventId?: string;
  /** Ends the iteration and closes the connection. */
  signal?: AbortSignal;
  /** Told each time the stream is open: the first time and after each reconnection. */
  onOpen?: () => void;
  /**
   * Told when the stream is lost or cannot be opened, before waiting `delayMs` to open it again
   * after the last event received. `wasOpen` says whether it had been open.
   */
  onRetry?: (retry: { error: CheckoutError; delayMs: number; wasOpen: boolean }) => void;
}

/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** Waits between tries after consecutive failures; reset once the stream opens. */
const RECONNECT_DELAYS_MS = [500, 1000, 2000, 5000];
/** Answers after which opening the stream again can succeed; any other error status is final. */
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Follows `GET /api/v1/events/stream`. A lost connection, a 5xx or a 429 is retried for as long
 * as `signal` lets it, resuming with `Last-Event-ID` after the last event yielded, so that
 * nothing is missed and nothing comes twice. Keys refused, or a `lastEventId` the service does
 * not know, end it with a CheckoutError.
 */
export async function* followEvents(
  transport: TransportOptions,
  options: EventStreamOptions,
): AsyncGenerator<StreamedEvent, void, undefined> {
  const url = `${transport.baseUrl.replace(/\/+$/, "")}/api/v1/events/stream`;
  let lastEventId = options.lastEventId;
  let failures = 0;
  let serverRetryMs = 0;
  while (!options.signal?.aborted) {
    const connection = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, connection.signal]) : connection.signal;
    let wasOpen = false;
    let lost: CheckoutError;
    try {
      const response = await transport
        .fetch(url, {
          headers: {
            "x-public-key": transport.publicKey,
            "x-secret-key": transport.secretKey,
            accept: "text/event-stream",
            ...(lastEventId && { "last-event-id": lastEventId }),
          },
          signal,
        })
        .catch((error: unknown) => {
          throw noAnswer(transport.baseUrl, error);
        });
      if (!response.ok || !response.body) {
        const refusal = await errorOf(response);
        if (!RETRIED_STATUSES.has(response.status)) throw refusal;
        lost = refusal;
      } else if (!/^text\/event-stream\b/.test(response.headers.get("content-type") ?? "")) {
        // Something else answered there (a proxy's page, another service): no retry mends that.
        await response.body.cancel();
        throw notAStream(response);
      } else {
        wasOpen = true;
        failures = 0;
        options.onOpen?.();
        const messages = readEventStream(response.body, (ms) => {
          serverRetryMs = ms;
        });
        try {
          for await (const message of messages) {
            if (!message.id) continue;
            const data = parsed(message, response);
            lastEventId = message.id;
            yield { id: message.id, event: data.event, data };
          }
        } catch (error) {
          if (error instanceof CheckoutError) throw error;
          throw noAnswer(transport.baseUrl, error);
        }
        lost = new CheckoutError(0, "CONNECTION_ERROR", `The event stream from ${transport.baseUrl} ended`);
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (!(error instanceof CheckoutError) || error.code !== "CONNECTION_ERROR") throw error;
      lost = error;
    } finally {
      // Also when the caller stops iterating: the connection, and its place at the service, go.
      connection.abort();
    }
    const ladder = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)] ?? 5000;
    const delayMs = Math.max(ladder, wasOpen ? serverRetryMs : 0);
    failures += 1;
    options.onRetry?.({ error: lost, delayMs, wasOpen });
    if (!(await pause(delayMs, options.signal))) return;
  }
}

function noAnswer(baseUrl: string, error: unknown): CheckoutError {
  const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
  return new CheckoutError(0, "CONNECTION_ERROR", `No answer from ${baseUrl}: ${reason}`);
}

async function errorOf(response: Response): Promise<CheckoutError> {
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const text = await response.text().catch(() => "");
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string; details?: unknown } };
    if (error?.code) {
      return new CheckoutError(response.status, error.code, error.message ?? error.code, {
        requestId,
        details: error.details,
      });
    }
  } catch {}
  return notAStream(response);
}

const notAStream = (response: Response) =>
  new CheckoutError(
    response.status,
    "INVALID_RESPONSE",
    `GET /api/v1/events/stream: not an event stream (${response.status})`,
    { requestId: response.headers.get("x-request-id") ?? undefined },
  );

function parsed(message: SseMessage, response: Response): WebhookPayload {
  try {
    return JSON.parse(message.data) as WebhookPayload;
  } catch {
    throw new CheckoutError(response.status, "INVALID_RESPONSE", `Event ${message.id} is not JSON`, {
      requestId: response.headers.get("x-request-id") ?? undefined,
    });
  }
}

/** Resolves true after `ms`, or false at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (slept: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      resolve(slept);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/**
 * Reads a text/event-stream body message by message (the WHATWG parsing rules); `onRetry` hears
 * each `retry:` field. Ends when the body ends; abort the request to stop early.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let id: string | undefined;
  let event = "";
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      newline = buffer.search(/\r\n|\r|\n/);
      if (line === "") {
        if (data.length > 0) yield { id, event: event || "message", data: data.join("\n") };
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id" && !value.includes("\0")) id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) onRetry(Number(value));
    }
  }
}
