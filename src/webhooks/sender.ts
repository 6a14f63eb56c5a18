import { Agent } from "undici";
import { isAllowedPrivateHost } from "../platform/net/unreachable-host.ts";
import {
  guardedLookup,
  type Resolver,
  refuseLiteralPrivateAddress,
  systemResolver,
  UnreachableAddressError,
} from "./safe-connect.ts";

export type AttemptOutcome = "delivered" | "rejected" | "retry";

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  /** The start of the receiver's answer (ANSWER_EXCERPT_BYTES), for the attempt log; null when none came. */
  answer: string | null;
  /** What the merchant sees in the attempt log. */
  error: string | null;
  /** What only the operator's log sees (which private address a name resolved to). */
  detail?: string;
  durationMs: number;
}

/** Merchants see this, not the address: a merchant must not map internal names through us. */
export const REFUSED_ADDRESS = "refused: the host is, or resolves to, a private or reserved address";

export interface SenderOptions {
  timeoutMs: number;
  allowedPrivateHosts: readonly string[];
  /** Injected in tests to answer chosen addresses without real DNS. */
  resolver?: Resolver;
}

/** 2xx delivers; any 4xx stops; 5xx, 3xx, timeouts and network errors are retried. */
export function classify(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return "delivered";
  if (statusCode >= 400 && statusCode < 500) return "rejected";
  return "retry";
}

/** Receiver URLs whose parse and address check are kept; past it the record starts again. */
const KNOWN_TARGETS = 10_000;

/** A checked receiver URL and the agent that carries its deliveries. */
interface Route {
  url: URL;
  dispatcher: Agent;
}

/** Where a receiver URL is sent, or why it is not: the same answer for every delivery to it. */
type Target = Route | { refused: UnreachableAddressError };

export class WebhookSender {
  private readonly guarded: Agent;
  private readonly exempt: Agent;
  private readonly targets = new Map<string, Target>();

  constructor(private readonly options: SenderOptions) {
    const resolver = options.resolver ?? systemResolver;
    const agent = (refusePrivate: boolean) =>
      new Agent({
        connect: { lookup: guardedLookup(resolver, refusePrivate), timeout: options.timeoutMs },
        keepAliveTimeout: 10_000,
        connections: 16,
      });
    this.guarded = agent(true);
    this.exempt = agent(false);
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = this.targetOf(url);
      if ("refused" in target) throw target.refused;
      const { statusCode, answer } = await post(target, headers, body, this.options.timeoutMs);
      return { outcome: classify(statusCode), statusCode, answer, error: null, durationMs: elapsed() };
    } catch (error) {
      const reason = error as Error & { code?: string };
      if (reason instanceof UnreachableAddressError || reason.code === "EUNREACHABLEHOST") {
        return {
          outcome: "retry",
          statusCode: null,
          answer: null,
          error: REFUSED_ADDRESS,
          detail: reason.message,
          durationMs: elapsed(),
        };
      }
      const timedOut =
        reason.name === "TimeoutError" || reason.name === "AbortError" || /timeout/i.test(reason.code ?? "");
      return {
        outcome: "retry",
        statusCode: null,
        answer: null,
        error: timedOut
          ? `timeout after ${this.options.timeoutMs} ms`
          : `${reason.code ?? reason.name}: ${reason.message}`,
        durationMs: elapsed(),
      };
    }
  }

  /**
   * Parsed and checked once per URL rather than once per delivery: the check reads the URL alone
   * (an IP literal, the allow-list); names are checked at connect time by the agents' lookup.
   */
  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      if (this.targets.size >= KNOWN_TARGETS) this.targets.clear();
      target = this.checkTarget(url);
      this.targets.set(url, target);
    }
    return target;
  }

  private checkTarget(raw: string): Target {
    const url = new URL(raw);
    const allowed = this.options.allowedPrivateHosts;
    try {
      refuseLiteralPrivateAddress(url, allowed);
    } catch (error) {
      if (error instanceof UnreachableAddressError) return { refused: error };
      throw error;
    }
    return { url, dispatcher: isAllowedPrivateHost(url, allowed) ? this.exempt : this.guarded };
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.exempt.close()]);
  }
}

/** Past this much of a receiver's answer, the rest is not read: the connection is dropped instead. */
const ANSWER_READ_LIMIT = 64 * 1024;
/** How much of the receiver's answer the attempt log keeps. */
export const ANSWER_EXCERPT_BYTES = 512;

/** The start of an answer as text; a character cut in two at the end is left out. */
function excerptOf(chunks: Buffer[]): string {
  if (chunks.length === 0) return "";
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  return bytes.toString("utf8", 0, Math.min(bytes.length, ANSWER_EXCERPT_BYTES)).replace(/\uFFFD$/, "");
}

/**
 * One POST through the agent's own dispatch, resolving with the status and the answer's first
 * bytes once the answer is read (the rest is dropped: reading it lets the socket be reused). The whole
 * exchange, queueing, connection, headers and body, must fit in the timeout (docs/api.md, "Webhooks",
 * 4). Without `request()`'s abort signal, its listeners and its body stream: a delivery's share of
 * the dispatcher's CPU.
 */
function post(
  target: Route,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ statusCode: number; answer: string }> {
  return new Promise((resolve, reject) => {
    let abort: ((reason: Error) => void) | undefined;
    let expired: Error | undefined;
    let settled = false;
    let statusCode = 0;
    let read = 0;
    const kept: Buffer[] = [];
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve({ statusCode, answer: excerptOf(kept) });
    };
    const timer = setTimeout(() => {
      expired = new DOMException("The operation was aborted due to timeout", "TimeoutError");
      settle(expired);
      // Not yet written (waiting for a connection): it is stopped before it is, in onConnect.
      abort?.(expired);
    }, timeoutMs).unref();
    target.dispatcher.dispatch(
      {
        origin: target.url.origin,
        path: `${target.url.pathname}${target.url.search}`,
        method: "POST",
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (expired) abortRequest(expired);
        },
        onHeaders(status) {
          statusCode = status;
          return true;
        },
        onData(chunk) {
          if (read < ANSWER_EXCERPT_BYTES) kept.push(chunk);
          read += chunk.length;
          if (read > ANSWER_READ_LIMIT) {
            settle(undefined);
            abort?.(new Error("receiver's answer past the read limit: connection dropped"));
          }
          return true;
        },
        onComplete() {
          settle(undefined);
        },
        onError(error) {
          settle(error);
        },
      },
    );
  });
}
