import type { FastifyBaseLogger } from "fastify";

export interface EventSenderOptions {
  /** The service's processor intake, e.g. http://127.0.0.1:3000/processor/webhooks/stripe. */
  targetUrl: () => string | undefined;
  /** The headers that sign a payload sent to a URL, in the processor's own scheme. */
  sign: (payload: string, targetUrl: string) => Record<string, string>;
  log: FastifyBaseLogger;
  /** Waits between attempts; an event still unacknowledged after the last is given up. */
  retryDelaysMs?: number[];
}

const DEFAULT_RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 4000, 8000];

/** Posts signed events to the service and retries until acknowledged, as processors do. */
export class EventSender {
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: EventSenderOptions) {}

  /** Sends an event; `event` is serialised now, so later changes to its objects do not alter it. */
  send(eventId: string, type: string, event: object): void {
    const delivery = this.deliver(eventId, type, JSON.stringify(event)).finally(() =>
      this.inFlight.delete(delivery),
    );
    this.inFlight.add(delivery);
  }

  private async deliver(eventId: string, type: string, payload: string): Promise<void> {
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; attempt <= delays.length && !this.closed; attempt++) {
      const target = this.options.targetUrl();
      if (target) {
        try {
          const response = await fetch(target, {
            method: "POST",
            headers: { "content-type": "application/json", ...this.options.sign(payload, target) },
            body: payload,
            signal: AbortSignal.timeout(10000),
          });
          await response.arrayBuffer();
          if (response.ok) return;
          this.options.log.warn({ eventId, status: response.status }, "sandbox event refused");
        } catch (error) {
          this.options.log.warn({ eventId, err: error }, "sandbox event not delivered");
        }
      }
      const delay = delays[attempt];
      if (delay === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.options.log.error({ eventId, type }, "sandbox gave up on an event");
  }

  /** Lets in-flight events finish (bounded by their own retries) and stops new retries. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }
}
