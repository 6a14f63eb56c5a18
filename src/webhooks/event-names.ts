// The events the service sends (docs/api.md, "Webhooks"): what an endpoint may subscribe to.
export const WEBHOOK_EVENT_NAMES = [
  "payment.completed",
  "payment.failed",
  "payment.expired",
  "payment.refunded",
  "payment.disputed",
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** The signed event an endpoint's test sends: belongs to no payment, goes to that endpoint only. */
export const TEST_EVENT_NAME = "webhook.test";
