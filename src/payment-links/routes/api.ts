import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { visibleMetadata } from "../../payments/core/metadata.ts";
import { createPaymentBodySchema } from "../../payments/schemas.ts";
import { byApiKey } from "../../platform/audit/store.ts";
import { CURRENCIES } from "../../platform/format/money.ts";
import {
  errorResponses,
  merchantSecurity,
  PAGE_QUERY_PROPERTIES,
  pageSchema,
  successEnvelope,
  uuidParam,
} from "../../platform/http/schemas.ts";
import { linkUrl, type PaymentLinks } from "../service.ts";
import type { PaymentLinkRow } from "../store.ts";

const paymentFields = createPaymentBodySchema.properties;
const cents = { ...paymentFields.amount, description: "Cents" } as const;

const createLinkBody = {
  type: "object",
  required: ["name", "currency"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200, description: "What the customer pays for" },
    currency: paymentFields.currency,
    amount: { ...cents, description: "A fixed price in cents; leave out to let the customer choose" },
    minAmount: { ...cents, description: "The least a customer may choose, in cents (default 100)" },
    maxAmount: { ...cents, description: "The most a customer may choose, in cents (default 99999999)" },
    description: paymentFields.description,
    successUrl: paymentFields.successUrl,
    metadata: paymentFields.metadata,
  },
} as const;

const changeLinkBody = {
  type: "object",
  properties: {
    active: { type: "boolean", description: "false: the link's page answers 410 and takes no payment" },
    name: { type: "string", minLength: 1, maxLength: 200 },
    description: { type: ["string", "null"], maxLength: 1000 },
  },
} as const;

const linkSchema = {
  type: "object",
  required: [
    "linkId",
    "url",
    "name",
    "currency",
    "amount",
    "minAmount",
    "maxAmount",
    "description",
    "successUrl",
    "metadata",
    "active",
    "createdAt",
    "paymentCount",
    "amountPaid",
  ],
  properties: {
    linkId: { type: "string", format: "uuid" },
    url: { type: "string", description: "The page customers open: <an active SafeSite>/l/<slug>" },
    name: { type: "string" },
    currency: { type: "string", enum: [...CURRENCIES] },
    amount: {
      type: ["integer", "null"],
      description: "The fixed price in cents; null: the customer chooses",
    },
    minAmount: { type: ["integer", "null"] },
    maxAmount: { type: ["integer", "null"] },
    description: { type: ["string", "null"] },
    successUrl: {
      type: ["string", "null"],
      description: "Where customers go after paying; null: the service's own confirmation page",
    },
    metadata: { type: ["object", "null"], additionalProperties: true },
    active: { type: "boolean" },
    createdAt: { type: "string", format: "date-time" },
    paymentCount: { type: "integer", description: "The link's payments that were paid" },
    amountPaid: { type: "integer", description: "What they paid, in cents (refunds not subtracted)" },
  },
} as const;

export function toLinkResource(link: PaymentLinkRow) {
  return {
    linkId: link.id,
    url: linkUrl(link),
    name: link.name,
    currency: link.currency,
    amount: link.amount,
    minAmount: link.min_amount,
    maxAmount: link.max_amount,
    description: link.description,
    successUrl: link.success_url,
    metadata: visibleMetadata(link.metadata),
    active: link.active,
    createdAt: link.created_at.toISOString(),
    paymentCount: link.payment_count,
    amountPaid: link.amount_paid,
  };
}

const params = {
  type: "object",
  required: ["linkId"],
  properties: { linkId: uuidParam("Payment link") },
} as const;

const DEFAULT_LIMIT = 20;

/** docs/api.md, "Payment links": payment links through the merchant API. */
const paymentLinkRoutes: FastifyPluginAsync<{ links: PaymentLinks }> = async (scope, { links }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const one = { 200: successEnvelope(linkSchema), ...errorResponses };

  app.post(
    "/api/v1/payment-links",
    {
      schema: {
        summary: "Create a payment link",
        tags: ["payment links"],
        security: merchantSecurity,
        body: createLinkBody,
        response: { 201: successEnvelope(linkSchema), ...errorResponses, 409: { $ref: "ErrorResponse#" } },
      },
    },
    async (request, reply) => {
      const link = await links.create(request.merchant.groupId, request.body, (id) =>
        byApiKey(request, "payment_link.created", id, { name: request.body.name }),
      );
      return reply.code(201).send({ success: true as const, data: toLinkResource(link) });
    },
  );

  app.get(
    "/api/v1/payment-links",
    {
      schema: {
        summary: "List payment links, newest first",
        tags: ["payment links"],
        security: merchantSecurity,
        querystring: {
          type: "object",
          properties: PAGE_QUERY_PROPERTIES,
        } as const,
        response: {
          200: successEnvelope(pageSchema("links", linkSchema)),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? DEFAULT_LIMIT : Number(request.query.limit);
      const rows = await links.list(request.merchant.groupId, request.query.after, limit + 1);
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return {
        success: true as const,
        data: {
          links: page.map(toLinkResource),
          hasMore,
          nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null,
        },
      };
    },
  );

  app.get(
    "/api/v1/payment-links/:linkId",
    {
      schema: {
        summary: "Get a payment link",
        tags: ["payment links"],
        security: merchantSecurity,
        params,
        response: one,
      },
    },
    async (request) => ({
      success: true as const,
      data: toLinkResource(await links.get(request.merchant.groupId, request.params.linkId)),
    }),
  );

  app.patch(
    "/api/v1/payment-links/:linkId",
    {
      schema: {
        summary: "Change or deactivate a payment link",
        tags: ["payment links"],
        security: merchantSecurity,
        params,
        body: changeLinkBody,
        response: one,
      },
    },
    async (request) => {
      const { linkId } = request.params;
      const link = await links.change(request.merchant.groupId, linkId, request.body, (changed) =>
        changed ? byApiKey(request, "payment_link.changed", linkId, request.body) : null,
      );
      return { success: true as const, data: toLinkResource(link) };
    },
  );
};

export default paymentLinkRoutes;
