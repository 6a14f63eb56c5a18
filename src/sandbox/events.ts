import { createHmac } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { nowSeconds, sandboxId } from "./state.ts";

/** The API version the sandbox's objects follow (that of the SDK the service is built with). */
export const SANDBOX_API_VERSION = "2026-10-28.endive";

interface SandboxEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
  data: { object: unknown };
}

/** Stripe's webhook signature: `t=<time>,v1=<HMAC-SHA256 of "<time>.<payload>" with the secret>`. */
export function stripeSignature(payload: string, secret: string, time = nowSeconds()): string {
  const mac = createHmac("sha256", secret).update(`${time}.${payload}`).digest("hex");
  return `t=${time},v1=${mac}`;
}

export interface EventSenderOptions {
  /** The service's processor intake, e.g. http://127.0.0.1:3000/processor/webhooks/stripe. */
  targetUrl: () => string | undefined;
  webhookSecret: string;
  log: FastifyBaseLogger;
  /** Waits between attempts; an event still unacknowledged after the last is given up. */
  retryDelaysMs?: number[];
}

const DEFAULT_RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 4000, 8000];

/** Posts Stripe-signed events to the service and retries until acknowledged, as Stripe does. */
export class EventSender {
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: EventSenderOptions) {}

  send(type: string, object: object): SandboxEvent {
    const event: SandboxEvent = {
      id: sandboxId("evt"),
      object: "event",
      api_version: SANDBOX_API_VERSION,
      created: nowSeconds(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      // A snapshot: later changes to the object must not alter an event already sent.
      data: { object: structuredClone(object) },
    };
    const delivery = this.deliver(event).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
    return event;
  }

  private async deliver(event: SandboxEvent): Promise<void> {
    const payload = JSON.stringify(event);
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; attempt <= delays.length && !this.closed; attempt++) {
      const target = this.options.targetUrl();
      if (target) {
        try {
          const response = await fetch(target, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "stripe-signature": stripeSignature(payload, this.options.webhookSecret),
            },
            body: payload,
            signal: AbortSignal.timeout(10000),
          });
          await response.arrayBuffer();
          if (response.ok) return;
          this.options.log.warn({ eventId: event.id, status: response.status }, "sandbox event refused");
        } catch (error) {
          this.options.log.warn({ eventId: event.id, err: error }, "sandbox event not delivered");
        }
      }
      const delay = delays[attempt];
      if (delay === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.options.log.error({ eventId: event.id, type: event.type }, "sandbox gave up on an event");
  }

  /** Lets in-flight events finish (bounded by their own retries) and stops new retries. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
  }
}
