import { AsyncLocalStorage } from "node:async_hooks";
import { Readable } from "node:stream";
import Stripe from "stripe";
import { Agent, type Dispatcher, util } from "undici";

/** undici's codes for a deadline that passed: connecting, waiting for the headers, reading the body. */
const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Past this much of an answer the request fails (and the SDK asks again). The SDK's largest
 * answer here is a list of 100 checkout sessions, well under a megabyte.
 */
export const ANSWER_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The signal of the adapter call a request belongs to: once it aborts (its deadline passed, its
 * caller gave up) no request of the call is sent, and one under way is cut off, so the SDK's
 * retries stop with it.
 */
export const requestSignal = new AsyncLocalStorage<AbortSignal>();

type RequestHeaders = Record<string, string | number | string[] | undefined>;

const isTimeout = (error: unknown): boolean =>
  TIMEOUT_CODES.has((error as { code?: string } | null)?.code ?? "");

/** The SDK gives Content-Length as a number; undici takes strings. */
function undiciHeaders(headers: RequestHeaders): Record<string, string | string[]> {
  const converted: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) converted[name] = typeof value === "number" ? String(value) : value;
  }
  return converted;
}

/**
 * The official SDK's requests, carried by undici instead of `node:http`: the SDK still builds
 * every request, signs, retries with its idempotency key and reads the answers; only the
 * transport is swapped, through the SDK's documented `httpClient` seam, because `node:http`'s
 * client costs more CPU per request than undici's (5–6 % of a create's, docs/performance.md).
 * Each request is one `dispatch` on the agent that resolves once the answer is read whole,
 * without `request()`'s body stream and its listeners (docs/performance.md). An answer cut off or
 * stalled after its headers is therefore a failed request, which the SDK asks again with the same
 * idempotency key, as it does a connection lost before them.
 */
export class UndiciHttpClient extends Stripe.HttpClient {
  private readonly agent: Agent;

  constructor(connectTimeoutMs: number) {
    super();
    this.agent = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 10_000 });
  }

  override getClientName(): string {
    return "undici";
  }

  override makeRequest(
    host: string,
    port: string,
    path: string,
    method: string,
    headers: RequestHeaders,
    requestData: string,
    protocol: string,
    timeout: number,
  ): Promise<Stripe.HttpClientResponse> {
    const signal = requestSignal.getStore();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      let rawHeaders: Buffer[] = [];
      const chunks: Buffer[] = [];
      let length = 0;
      let abort: ((reason: Error) => void) | undefined;
      this.agent.dispatch(
        {
          origin: `${protocol}://${host}:${port}`,
          path,
          method: method as Dispatcher.HttpMethod,
          headers: undiciHeaders(headers),
          body: requestData,
          headersTimeout: timeout,
          bodyTimeout: timeout,
        },
        {
          onConnect(abortRequest) {
            abort = abortRequest;
            if (signal?.aborted) abortRequest(signal.reason);
            else signal?.addEventListener("abort", () => abortRequest(signal.reason), { once: true });
          },
          onHeaders(status, headerPairs) {
            statusCode = status;
            rawHeaders = headerPairs;
            return true;
          },
          onData(chunk) {
            length += chunk.length;
            if (length > ANSWER_LIMIT_BYTES) {
              abort?.(new Error(`the processor's answer is longer than ${ANSWER_LIMIT_BYTES} bytes`));
              return false;
            }
            chunks.push(chunk);
            return true;
          },
          onComplete() {
            const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
            resolve(new BufferedResponse(statusCode, util.parseHeaders(rawHeaders), body));
          },
          onError(error) {
            // The SDK words its connection error from this code; any rejection is retried as one.
            reject(isTimeout(error) ? Stripe.HttpClient.makeTimeoutError() : error);
          },
        },
      );
    });
  }
}

/** An answer already read whole. */
class BufferedResponse extends Stripe.HttpClientResponse {
  constructor(
    statusCode: number,
    headers: Record<string, string | string[]>,
    private readonly body: Buffer,
  ) {
    super(statusCode, headers);
  }

  override getRawResponse(): { statusCode: number; headers: Record<string, string | string[]> } {
    return { statusCode: this.getStatusCode(), headers: this.getHeaders() };
  }

  override toStream(streamCompleteCallback: () => void): Readable {
    const stream = Readable.from([this.body]);
    stream.once("end", streamCompleteCallback);
    return stream;
  }

  override async toJSON(): Promise<unknown> {
    return this._parseResponseBody(this.body.toString("utf8"));
  }
}
