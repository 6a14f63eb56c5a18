import { PAYMENT_STATUSES } from "../payments/core/status.ts";
import { CURRENCIES } from "../platform/format/money.ts";
import { WEBHOOK_EVENT_NAMES } from "../webhooks/event-names.ts";

// Documentation-only schemas: the answers of routes whose handlers build their JSON directly.
// The live-answer test validates real answers against them, so they cannot drift unnoticed.

const uuid = { type: "string", format: "uuid" } as const;
const time = { type: "string", format: "date-time" } as const;
const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, "null"], ...extra });
const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: "object",
  required,
  properties,
});

const EVENT_NAMES = [...WEBHOOK_EVENT_NAMES];

/** The body posted to a webhookUrl, in the order its fields are sent. */
export const webhookPayloadSchema = {
  ...object({
    event: { type: "string", enum: EVENT_NAMES },
    transactionId: uuid,
    status: { type: "string", enum: [...PAYMENT_STATUSES] },
    amount: { type: "integer", description: "Cents" },
    currency: { type: "string", enum: [...CURRENCIES] },
    customerEmail: { type: "string" },
    processorPaymentId: nullable("string"),
    metadata: { type: "object", additionalProperties: true },
    completedAt: nullable("string", { format: "date-time" }),
    timestamp: time,
    amountRefunded: { type: "integer", description: "Cents refunded so far" },
  }),
  example: {
    event: "payment.completed",
    transactionId: "5f0c8a52-3f3b-4c3e-9d6b-0a8f4f3b2c1d",
    status: "succeeded",
    amount: 1999,
    currency: "usd",
    customerEmail: "jane@example.com",
    processorPaymentId: "pi_3Nx1",
    metadata: { orderId: "A-1001" },
    completedAt: "2026-11-24T09:02:13.000Z",
    timestamp: "2026-11-24T09:02:13.120Z",
    amountRefunded: 0,
  },
};

const attemptSchema = object({
  attempt: { type: "integer" },
  attemptedAt: time,
  statusCode: nullable("integer"),
  error: nullable("string"),
  durationMs: { type: "integer" },
  answer: nullable("string", {
    description: "The start of the receiver's answer (512 bytes); null when none came",
  }),
});

const deliverySchema = object({
  id: uuid,
  url: { type: "string" },
  state: { type: "string", enum: ["pending", "succeeded", "failed"] },
  attemptCount: { type: "integer" },
  nextAttemptAt: nullable("string", { format: "date-time" }),
  sentTimestamp: nullable("string"),
  createdAt: time,
  completedAt: nullable("string", { format: "date-time" }),
  attempts: { type: "array", items: attemptSchema },
});

/** An event of the log: what was sent (or would have been, without a webhookUrl) and each delivery. */
export const eventSchema = object({
  id: { ...uuid, description: "The same as eventId" },
  eventId: { ...uuid, description: "The webhook-id header of every delivery of this event" },
  type: { type: "string", enum: EVENT_NAMES },
  event: { type: "string", enum: EVENT_NAMES, description: "The same as type" },
  status: { type: "string", enum: [...PAYMENT_STATUSES] },
  transactionId: uuid,
  createdAt: time,
  payload: { $ref: "#/components/schemas/WebhookPayload" },
  deliveries: { type: "array", items: deliverySchema },
});

const safeSite = object({
  id: uuid,
  name: { type: "string" },
  url: { type: "string" },
  isActive: { type: "boolean" },
});
const group = {
  groupId: uuid,
  groupName: { type: "string" },
  safeSites: { type: "array", items: { $ref: "#/components/schemas/SafeSite" } },
};

export const adminSchemas = {
  SafeSite: safeSite,
  Group: object(group),
  GroupSummary: object({
    groupId: uuid,
    groupName: { type: "string" },
    activeSafeSites: { type: "integer" },
    createdAt: time,
  }),
  CreatedGroup: object({
    ...group,
    publicKey: { type: "string" },
    secretKey: { type: "string", description: "Shown once" },
    webhookSecret: { type: "string", description: "whsec_…, signs this group's webhooks" },
  }),
  KeyPair: object({
    publicKey: { type: "string" },
    secretKey: { type: "string", description: "Shown once" },
  }),
  RevokedKey: object({ publicKey: { type: "string" }, revoked: { type: "boolean", const: true } }),
  WebhookSecretRotation: object({
    webhookSecret: { type: "string" },
    previousSecretValidUntil: nullable("string", { format: "date-time" }),
  }),
  ReconciliationItem: {
    type: "object",
    required: ["id", "kind", "transactionId", "groupId", "flaggedAt"],
    properties: {
      id: { type: "string", pattern: "^[0-9]+$" },
      kind: {
        type: "string",
        enum: [
          "paid_after_cancel",
          "paid_after_expiry",
          "disputed_after_close",
          "checkout_missing",
          "processor_mismatch",
          "drift",
          "orphan_checkout_paid",
          "unbooked_payment",
        ],
      },
      transactionId: uuid,
      groupId: uuid,
      amount: nullable("integer"),
      currency: nullable("string"),
      status: nullable("string"),
      amountRefunded: nullable("integer"),
      refundable: { type: "integer" },
      processorPaymentId: nullable("string"),
      processorEventId: nullable("string"),
      reason: nullable("string"),
      flaggedAt: time,
    },
  },
  StartedRun: object({ runId: uuid }),
  ReconciliationRun: {
    type: "object",
    required: ["runId", "status", "since", "until", "startedAt"],
    properties: {
      runId: uuid,
      status: { type: "string", enum: ["running", "finished"] },
      checked: { type: "integer" },
      repaired: { type: "integer" },
      drifts: { type: "integer" },
      since: time,
      until: time,
      startedAt: time,
      finishedAt: nullable("string", { format: "date-time" }),
    },
  },
  FailedDelivery: object({
    deliveryId: uuid,
    eventId: uuid,
    event: { type: "string" },
    transactionId: uuid,
    groupId: uuid,
    url: { type: "string" },
    attempts: { type: "integer" },
    lastStatusCode: nullable("integer"),
    lastError: nullable("string"),
    failedAt: time,
  }),
  Queued: object({ queued: { type: "integer" } }),
  Invite: {
    type: "object",
    required: ["email", "inviteUrl"],
    properties: {
      userId: uuid,
      operatorId: uuid,
      email: { type: "string" },
      role: { type: "string", enum: ["owner", "developer", "viewer"] },
      inviteUrl: { type: "string", description: "Single use, 72 hours" },
    },
  },
  PasswordReset: object({ resetUrl: { type: "string" }, expiresAt: time }),
};
