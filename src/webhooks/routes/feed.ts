import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope, uuidParam } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import { recoverBodySchema, recoveryWindow, storableTime } from "../../platform/http/window.ts";
import type { WebhookEvents } from "../module.ts";

const MAX_PAGE = 500;

const querystring = {
  type: "object",
  required: ["since"],
  properties: {
    since: { type: "string", format: "date-time" },
    limit: {
      type: "string",
      pattern: describedPattern("^[0-9]{1,3}$", "must be a whole number (at most 999)"),
    },
  },
} as const;

/** GET /api/v1/events and POST /api/v1/events/recover: catching up on missed webhooks. */
const eventFeedRoute: FastifyPluginAsync<{ webhooks: WebhookEvents }> = async (scope, { webhooks }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.get(
    "/api/v1/events",
    {
      schema: {
        summary: "Catch up on events created at or after `since`, oldest first",
        description:
          "Page by passing the last event's createdAt as the next `since`; an event on the boundary may repeat, so de-duplicate on its id.",
        tags: ["webhooks"],
        security: merchantSecurity,
        querystring,
        response: errorResponses,
      },
    },
    async (request) => {
      const limit = Math.min(Math.max(Number(request.query.limit ?? 100), 1), MAX_PAGE);
      const since = storableTime(request.query.since, "since");
      return { success: true, data: await webhooks.log.eventsSince(request.merchant.groupId, since, limit) };
    },
  );

  app.post(
    "/api/v1/events/recover",
    {
      config: { rateLimit: { max: 10, timeWindow: 60_000 } },
      schema: {
        summary: "Send again every event whose deliveries all failed in a time window",
        description:
          "Each keeps its webhook-id, so a receiver that did get it de-duplicates. With endpointId: every event " +
          "of the window that endpoint takes and did not receive, to that endpoint only.",
        tags: ["webhooks"],
        security: merchantSecurity,
        body: {
          ...recoverBodySchema,
          properties: { ...recoverBodySchema.properties, endpointId: uuidParam("Webhook endpoint") },
        },
        response: {
          202: successEnvelope({
            type: "object",
            required: ["queued"],
            properties: { queued: { type: "integer" } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const window = recoveryWindow(request.body);
      const { endpointId } = request.body;
      const audit = (queued: number) =>
        byApiKey(request, "webhooks.recovered", endpointId ?? null, {
          since: window.since.toISOString(),
          until: window.until.toISOString(),
          queued,
        });
      const result = endpointId
        ? await webhooks.replays.recoverToEndpoint(
            { groupId: request.merchant.groupId, endpointId, ...window },
            audit,
          )
        : await webhooks.replays.recover({ groupId: request.merchant.groupId, ...window }, audit);
      return reply.code(202).send({ success: true as const, data: result });
    },
  );
};

export default eventFeedRoute;
