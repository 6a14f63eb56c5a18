import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { UUID_PATTERN_SOURCE } from "../../platform/format/uuid.ts";
import {
  adminSecurity,
  errorResponses,
  merchantSecurity,
  successEnvelope,
} from "../../platform/http/schemas.ts";
import type { CustomerErasure } from "../erasure/service.ts";

const email = {
  type: "string",
  format: "email",
  maxLength: 255,
  description: "The customer's e-mail address, any case",
} as const;

const erasedSchema = successEnvelope({
  type: "object",
  required: ["erased"],
  properties: {
    erased: {
      type: "object",
      required: ["payments"],
      properties: { payments: { type: "integer", description: "Payments whose customer was erased now" } },
    },
  },
} as const);

const WHAT_IT_DOES =
  "Each matched payment loses customerEmail, customerName, description and metadata everywhere the service " +
  "keeps or shows them (the payment, lists and exports, the events feed and stream, stored webhook bodies, " +
  "receipts, idempotent requests) and gains erasedAt; ids, amounts, statuses, times and refunds stay. " +
  "Audited as customer.erased with a keyed hash of the address. An address with no payments, or already " +
  "erased, answers 0. The processor's own records are the processor's to erase.";

/** POST /api/v1/customers/erase: a group erases one of its customers. */
export const merchantErasureRoute: FastifyPluginAsync<{ erasure: CustomerErasure }> = async (
  scope,
  { erasure },
) => {
  scope.withTypeProvider<JsonSchemaToTsProvider>().post(
    "/api/v1/customers/erase",
    {
      schema: {
        summary: "Erase a customer of this group (GDPR article 17)",
        description: WHAT_IT_DOES,
        tags: ["customers"],
        security: merchantSecurity,
        body: { type: "object", required: ["email"], properties: { email } } as const,
        response: { 200: erasedSchema, ...errorResponses },
      },
    },
    async (request) => {
      const erased = await erasure.erase({
        email: request.body.email,
        groupId: request.merchant.groupId,
        actor: `api_key:${request.merchant.publicKey}`,
        address: request.ip,
      });
      return { success: true as const, data: { erased } };
    },
  );
};

/** POST /admin/v1/customers/erase: an operator erases a customer of one group, or of every group. */
export const adminErasureRoute: FastifyPluginAsync<{ erasure: CustomerErasure }> = async (
  scope,
  { erasure },
) => {
  scope.withTypeProvider<JsonSchemaToTsProvider>().post(
    "/admin/v1/customers/erase",
    {
      schema: {
        summary: "Erase a customer of one group, or of every group",
        description: `${WHAT_IT_DOES} Without groupId, every group's payments with this address.`,
        tags: ["admin"],
        security: adminSecurity,
        body: {
          type: "object",
          required: ["email"],
          properties: {
            email,
            groupId: {
              type: "string",
              pattern: UUID_PATTERN_SOURCE,
              description: "One group; none: every group",
            },
          },
        } as const,
        response: { 200: erasedSchema, ...errorResponses },
      },
    },
    async (request) => {
      const erased = await erasure.erase({
        email: request.body.email,
        groupId: request.body.groupId ?? null,
        actor: "admin-token",
        address: request.ip,
      });
      return { success: true as const, data: { erased } };
    },
  );
};
