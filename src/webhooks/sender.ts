import { Agent, request } from "undici";
import { isAllowedPrivateHost } from "../net/unreachable-host.ts";
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

/** Spec §6.3: 2xx delivers; any 4xx stops; 5xx, 3xx, timeouts and network errors are retried. */
export function classify(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return "delivered";
  if (statusCode >= 400 && statusCode < 500) return "rejected";
  return "retry";
}

/** Receiver URLs whose parse and address check are kept; past it the record starts again. */
const KNOWN_TARGETS = 10_000;

/** Where a receiver URL is sent, or why it is not: the same answer for every delivery to it. */
type Target = { url: URL; dispatcher: Agent } | { refused: UnreachableAddressError };

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
    // A timer cleared when the exchange ends: AbortSignal.timeout's stays pending for the whole
    // timeout, one per delivery, each with a weak reference for the collector to track.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      this.options.timeoutMs,
    ).unref();
    try {
      const target = this.targetOf(url);
      if ("refused" in target) throw target.refused;
      const response = await request(target.url, {
        method: "POST",
        headers,
        body,
        dispatcher: target.dispatcher,
        // The whole exchange, headers and body, must fit in the timeout (spec §6.3 rules 1, 4).
        signal: deadline.signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      // Only the status matters; the body is read (bounded by the timeout) so the socket can be reused.
      await response.body.dump({ limit: 64 * 1024 });
      return {
        outcome: classify(response.statusCode),
        statusCode: response.statusCode,
        error: null,
        durationMs: elapsed(),
      };
    } catch (error) {
      const reason = error as Error & { code?: string };
      if (reason instanceof UnreachableAddressError || reason.code === "EUNREACHABLEHOST") {
        return {
          outcome: "retry",
          statusCode: null,
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
        error: timedOut
          ? `timeout after ${this.options.timeoutMs} ms`
          : `${reason.code ?? reason.name}: ${reason.message}`,
        durationMs: elapsed(),
      };
    } finally {
      clearTimeout(timer);
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
