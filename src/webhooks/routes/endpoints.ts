import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope, uuidParam } from "../../platform/http/schemas.ts";
import { DEFAULT_GRACE_SECONDS, ENDPOINT_LIMIT, type WebhookEndpoints } from "../endpoints.ts";
import { TEST_EVENT_NAME, WEBHOOK_EVENT_NAMES } from "../event-names.ts";

const endpointProperties = {
  endpointId: { type: "string", format: "uuid" },
  url: { type: "string" },
  events: { type: "array", items: { type: "string", enum: [...WEBHOOK_EVENT_NAMES] } },
  description: { type: ["string", "null"] },
  enabled: { type: "boolean" },
  disabledReason: {
    type: ["string", "null"],
    enum: ["failing", "disabled", null],
    description: "failing: disabled after every delivery failed for WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS",
  },
  createdAt: { type: "string", format: "date-time" },
} as const;

const endpointSchema = {
  type: "object",
  required: Object.keys(endpointProperties),
  properties: endpointProperties,
} as const;

const createdSchema = {
  type: "object",
  required: [...Object.keys(endpointProperties), "secret"],
  properties: {
    ...endpointProperties,
    secret: { type: "string", description: "The endpoint's signing secret (whsec_…): shown this once" },
  },
} as const;

const url = { type: "string", minLength: 10, maxLength: 2000, pattern: "^https?://" } as const;
// Names are checked by the service, so an unknown one is a 400 naming it.
const events = {
  type: "array",
  minItems: 1,
  maxItems: 20,
  items: { type: "string", maxLength: 100 },
  description: `Event names (${WEBHOOK_EVENT_NAMES.join(", ")}); all of them when left out`,
} as const;
const description = { type: ["string", "null"], maxLength: 500 } as const;

const params = {
  type: "object",
  required: ["endpointId"],
  properties: { endpointId: uuidParam("Webhook endpoint") },
} as const;

/** docs/webhooks.md, "Endpoints": a group's webhook endpoints through the merchant API. */
const webhookEndpointRoutes: FastifyPluginAsync<{ endpoints: WebhookEndpoints }> = async (
  scope,
  { endpoints },
) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const one = { 200: successEnvelope(endpointSchema), ...errorResponses };
  const tags = ["webhooks"];

  app.post(
    "/api/v1/webhook-endpoints",
    {
      schema: {
        summary: `Add a webhook endpoint (at most ${ENDPOINT_LIMIT} a group)`,
        tags,
        security: merchantSecurity,
        body: {
          type: "object",
          required: ["url"],
          additionalProperties: false,
          properties: { url, events, description },
        } as const,
        response: { 201: successEnvelope(createdSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await endpoints.create(request.merchant.groupId, request.body, (made) =>
        byApiKey(request, "webhook_endpoint.created", made.endpointId, {
          url: made.url,
          events: made.events,
        }),
      );
      return reply.code(201).send({ success: true as const, data: { ...endpoint, secret } });
    },
  );

  app.get(
    "/api/v1/webhook-endpoints",
    {
      schema: {
        summary: "List the group's webhook endpoints",
        tags,
        security: merchantSecurity,
        response: {
          200: successEnvelope({
            type: "object",
            required: ["endpoints"],
            properties: { endpoints: { type: "array", items: endpointSchema } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: { endpoints: await endpoints.list(request.merchant.groupId) },
    }),
  );

  app.get(
    "/api/v1/webhook-endpoints/:endpointId",
    {
      schema: { summary: "Get a webhook endpoint", tags, security: merchantSecurity, params, response: one },
    },
    async (request) => ({
      success: true as const,
      data: await endpoints.get(request.merchant.groupId, request.params.endpointId),
    }),
  );

  app.patch(
    "/api/v1/webhook-endpoints/:endpointId",
    {
      schema: {
        summary: "Change a webhook endpoint: its URL, events, description, or whether it is enabled",
        tags,
        security: merchantSecurity,
        params,
        body: {
          type: "object",
          additionalProperties: false,
          minProperties: 1,
          properties: { url, events, description, enabled: { type: "boolean" } },
        } as const,
        response: one,
      },
    },
    async (request) => {
      const { endpointId } = request.params;
      const data = await endpoints.update(request.merchant.groupId, endpointId, request.body, () =>
        byApiKey(request, "webhook_endpoint.changed", endpointId, request.body),
      );
      return { success: true as const, data };
    },
  );

  app.delete(
    "/api/v1/webhook-endpoints/:endpointId",
    {
      schema: {
        summary: "Delete a webhook endpoint; its deliveries not yet made are given up",
        tags,
        security: merchantSecurity,
        params,
        response: {
          200: successEnvelope({
            type: "object",
            required: ["endpointId", "deleted"],
            properties: { endpointId: { type: "string", format: "uuid" }, deleted: { type: "boolean" } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { endpointId } = request.params;
      await endpoints.remove(request.merchant.groupId, endpointId, () =>
        byApiKey(request, "webhook_endpoint.deleted", endpointId),
      );
      return { success: true as const, data: { endpointId, deleted: true } };
    },
  );

  app.post(
    "/api/v1/webhook-endpoints/:endpointId/rotate-secret",
    {
      schema: {
        summary: "Give the endpoint a new signing secret; the old one signs beside it during the grace",
        tags,
        security: merchantSecurity,
        params,
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: {
            graceSeconds: {
              type: "integer",
              minimum: 0,
              maximum: 7 * 86_400,
              description: `How long the old secret goes on signing (default ${DEFAULT_GRACE_SECONDS})`,
            },
          },
        } as const,
        response: {
          200: successEnvelope({
            type: "object",
            required: ["secret"],
            properties: {
              secret: { type: "string", description: "The new signing secret: shown this once" },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { endpointId } = request.params;
      const graceSeconds = request.body?.graceSeconds ?? DEFAULT_GRACE_SECONDS;
      const data = await endpoints.rotateSecret(request.merchant.groupId, endpointId, graceSeconds, () =>
        byApiKey(request, "webhook_endpoint.secret_rotated", endpointId, { graceSeconds }),
      );
      return { success: true as const, data };
    },
  );

  app.post(
    "/api/v1/webhook-endpoints/:endpointId/test",
    {
      schema: {
        summary: `Send the endpoint one signed ${TEST_EVENT_NAME} event`,
        tags,
        security: merchantSecurity,
        params,
        response: {
          202: successEnvelope({
            type: "object",
            required: ["endpointId", "event"],
            properties: { endpointId: { type: "string", format: "uuid" }, event: { type: "string" } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { endpointId } = request.params;
      await endpoints.test(request.merchant.groupId, endpointId, () =>
        byApiKey(request, "webhook_endpoint.tested", endpointId),
      );
      return reply.code(202).send({ success: true as const, data: { endpointId, event: TEST_EVENT_NAME } });
    },
  );
};

export default webhookEndpointRoutes;
