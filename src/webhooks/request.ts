import { createHmac } from "node:crypto";
import type { ClaimedDelivery } from "./sql/queue.ts";

export const USER_AGENT = "Service-Webhook/1.0";

export type DeliveryToSign = Pick<
  ClaimedDelivery,
  "event_id" | "event" | "payment_id" | "payload" | "sent_timestamp" | "previous_webhook_secrets"
> & {
  /** Opened. */
  webhook_secret: string;
};

/**
 * Standard Webhooks signature: base64 HMAC-SHA256 over `${id}.${timestamp}.${body}` with the key
 * bytes of a `whsec_` secret. During a rotation's grace every secret still valid signs, space-separated.
 */
export function signWebhook(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      const signature = createHmac("sha256", key)
        .update(`${messageId}.${timestampSeconds}.${body}`)
        .digest("base64");
      return `v1,${signature}`;
    })
    .join(" ");
}

/** The documented headers and body, plus Standard Webhooks signature headers (docs/webhooks.md). */
export function buildRequest(delivery: DeliveryToSign, now = new Date()) {
  // The stored payload keeps the order it was built in; `timestamp` keeps its place if it has one.
  const body = JSON.stringify({ ...delivery.payload, timestamp: delivery.sent_timestamp });
  const secrets = [delivery.webhook_secret];
  for (const earlier of delivery.previous_webhook_secrets) {
    if (Date.parse(earlier.expiresAt) > now.getTime()) secrets.push(earlier.secret);
  }
  const timestampSeconds = Math.floor(now.getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-service-event": delivery.event,
    "x-service-transaction": delivery.payment_id,
    "x-service-timestamp": delivery.sent_timestamp,
    // The event's id: the same on every attempt and every resend (Standard Webhooks).
    "webhook-id": delivery.event_id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signWebhook(secrets, delivery.event_id, timestampSeconds, body),
  };
  return { headers, body };
}
