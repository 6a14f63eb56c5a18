import { PAYMENT_STATUSES } from "./payment.ts";

/** Spec §4.2/§8: http(s), 10 to 2000 characters. */
export const merchantUrlSchema = {
  type: "string",
  minLength: 10,
  maxLength: 2000,
  pattern: "^https?://",
} as const;

export const paymentIdParamsSchema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", description: "Transaction ID (UUID)" } },
} as const;

export const merchantSecurity = [{ publicKey: [], secretKey: [] }];

export function successEnvelope<T extends object>(data: T) {
  return {
    type: "object",
    required: ["success", "data"],
    properties: { success: { type: "boolean", const: true }, data },
  } as const;
}

export const errorResponses = {
  400: { $ref: "ErrorResponse#" },
  401: { $ref: "ErrorResponse#" },
  404: { $ref: "ErrorResponse#" },
  429: { $ref: "ErrorResponse#" },
  503: { $ref: "ErrorResponse#" },
} as const;

export const paymentResourceSchema = {
  type: "object",
  required: ["id", "status", "amount", "currency", "createdAt", "completedAt"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { type: "string", enum: [...PAYMENT_STATUSES] },
    amount: { type: "integer" },
    currency: { type: "string", enum: ["usd", "cad"] },
    customerEmail: { type: "string" },
    description: { type: ["string", "null"] },
    metadata: { type: ["object", "null"], additionalProperties: true },
    processorSessionId: { type: "string" },
    processorPaymentIntentId: { type: "string" },
    createdAt: { type: "string", format: "date-time" },
    completedAt: { type: ["string", "null"], format: "date-time" },
  },
} as const;
