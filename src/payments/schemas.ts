import type { FromSchema } from "json-schema-to-ts";
import { CURRENCIES, CURRENCY_INPUT_PATTERN } from "../platform/format/money.ts";
import { describedPattern } from "../platform/http/validation-messages.ts";

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
