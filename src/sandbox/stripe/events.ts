import { createHmac } from "node:crypto";
import type { EventSender } from "../events.ts";
import { nowSeconds, sandboxId } from "../state.ts";

/** The API version the sandbox's objects follow (that of the SDK the service is built with). */
export const SANDBOX_API_VERSION = "2026-10-28.endive";

/** Stripe's webhook signature: `t=<time>,v1=<HMAC-SHA256 of "<time>.<payload>" with the secret>`. */
export function stripeSignature(payload: string, secret: string, time = nowSeconds()): string {
  const mac = createHmac("sha256", secret).update(`${time}.${payload}`).digest("hex");
  return `t=${time},v1=${mac}`;
}

/** The headers that sign a Stripe event. */
export const signStripe = (secret: string) => (payload: string) => ({
  "stripe-signature": stripeSignature(payload, secret),
});

/** Sends one Stripe event about `object`, in Stripe's envelope. */
export function sendStripeEvent(sender: EventSender, type: string, object: object): void {
  const id = sandboxId("evt");
  sender.send(id, type, {
    id,
    object: "event",
    api_version: SANDBOX_API_VERSION,
    created: nowSeconds(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
}
