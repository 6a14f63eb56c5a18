import type { FromSchema } from "json-schema-to-ts";
import { CURRENCIES, CURRENCY_INPUT_PATTERN } from "../platform/format/money.ts";
import { describedPattern } from "../platform/http/validation-messages.ts";
import { PROCESSOR_NAMES } from "../processor/catalog.ts";
import type { DisputeReason, DisputeStatus } from "../processor/port.ts";

/** http(s), 10 to 2000 characters (docs/api.md, "POST /api/v1/payments/create"). */
const merchantUrl = {
  type: "string",
  minLength: 10,
  maxLength: 2000,
  pattern: describedPattern("^https?://", "must be an http or https URL"),
} as const;

/** The Create Payment body (docs/api.md, "POST /api/v1/payments/create"). Fields not listed are ignored. */
export const createPaymentBodySchema = {
  type: "object",
  required: ["amount", "currency", "successUrl", "cancelUrl"],
  properties: {
    amount: { type: "integer", minimum: 1, maximum: 99999999, description: "Cents" },
    currency: {
      type: "string",
      pattern: describedPattern(CURRENCY_INPUT_PATTERN, `must be ${CURRENCIES.join(" or ")}`),
      description: `${CURRENCIES.join(" or ")}, any case`,
    },
    successUrl: merchantUrl,
    cancelUrl: merchantUrl,
    customerEmail: { type: "string", format: "email", maxLength: 255 },
    customerName: { type: "string", maxLength: 255 },
    description: { type: "string", maxLength: 1000 },
    webhookUrl: merchantUrl,
    metadata: {
      type: "object",
      maxProperties: 20,
      propertyNames: { minLength: 1, maxLength: 100 },
      additionalProperties: { type: ["string", "number", "boolean", "null"], maxLength: 1000 },
    },
  },
} as const;

export type CreatePaymentInput = FromSchema<typeof createPaymentBodySchema>;

/** What a create answers. */
export const createPaymentResultSchema = {
  type: "object",
  required: ["transactionId", "paymentUrl", "sessionId", "expiresAt"],
  properties: {
    transactionId: { type: "string", format: "uuid" },
    paymentUrl: { type: "string" },
    sessionId: { type: "string" },
    expiresAt: { type: "string", format: "date-time" },
  },
} as const;

export type CreatePaymentResult = FromSchema<typeof createPaymentResultSchema>;

/** The refund body (docs/api.md, "Refunds"). Fields not listed are ignored, as on Create Payment. */
export const refundBodySchema = {
  type: "object",
  properties: {
    amount: {
      type: "integer",
      minimum: 1,
      maximum: 99999999,
      description: "Cents; all that remains when left out",
    },
    reason: { type: "string", enum: ["requested_by_customer", "duplicate", "fraudulent"] },
  },
} as const;

export type RefundInput = FromSchema<typeof refundBodySchema>;

/** A refund as the API answers it. */
export const refundResourceSchema = {
  type: "object",
  required: ["refundId", "transactionId", "amount", "currency", "status", "reason", "createdAt"],
  properties: {
    refundId: { type: "string", format: "uuid" },
    transactionId: { type: "string", format: "uuid" },
    amount: { type: "integer" },
    currency: { type: "string", enum: [...CURRENCIES] },
    status: { type: "string", enum: ["pending", "succeeded", "failed"] },
    reason: { type: ["string", "null"], enum: ["requested_by_customer", "duplicate", "fraudulent", null] },
    createdAt: { type: "string", format: "date-time" },
  },
} as const;

const DISPUTE_REASONS = [
  "fraudulent",
  "product_not_received",
  "product_unacceptable",
  "duplicate",
  "credit_not_processed",
  "unrecognized",
  "general",
] as const satisfies readonly DisputeReason[];

export const DISPUTE_STATUSES = [
  "needs_response",
  "under_review",
  "won",
  "lost",
  "accepted",
] as const satisfies readonly DisputeStatus[];

/** A dispute as the API answers it. */
export const disputeResourceSchema = {
  type: "object",
  required: [
    "disputeId",
    "transactionId",
    "processor",
    "processorDisputeId",
    "amount",
    "currency",
    "reason",
    "status",
    "evidenceDueBy",
    "evidenceSubmittedAt",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    disputeId: { type: "string", format: "uuid" },
    transactionId: { type: "string", format: "uuid" },
    processor: { type: "string", enum: [...PROCESSOR_NAMES] },
    processorDisputeId: { type: "string" },
    amount: { type: "integer", description: "Minor units" },
    currency: { type: "string", description: "Lowercase ISO 4217, as the processor reports it" },
    reason: { type: "string", enum: [...DISPUTE_REASONS] },
    status: { type: "string", enum: [...DISPUTE_STATUSES] },
    evidenceDueBy: {
      type: ["string", "null"],
      format: "date-time",
      description: "The last moment the processor takes evidence or acceptance",
    },
    evidenceSubmittedAt: { type: ["string", "null"], format: "date-time" },
    createdAt: { type: "string", format: "date-time" },
    updatedAt: { type: "string", format: "date-time" },
  },
} as const;

const evidenceText = { type: "string", minLength: 1, maxLength: 20000 } as const;

export const disputeEvidenceBodySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    productDescription: evidenceText,
    customerCommunication: evidenceText,
    refundPolicy: evidenceText,
    serviceDate: evidenceText,
    shippingTracking: evidenceText,
    uncategorizedText: evidenceText,
    submit: { type: "boolean", description: "Submit the evidence for review; it can no longer be changed" },
  },
} as const;

export type DisputeEvidenceInput = FromSchema<typeof disputeEvidenceBodySchema>;
