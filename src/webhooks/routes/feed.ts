import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { ApiError } from "../../http/errors.ts";
import { errorResponses, merchantSecurity } from "../../http/schemas.ts";
import type { WebhookService } from "../service.ts";

const MAX_PAGE = 500;

const querystring = {
  type: "object",
  required: ["since"],
  properties: {
    since: { type: "string", format: "date-time" },
    limit: { type: "string", pattern: "^[0-9]{1,3}$" },
  },
} as const;

/** GET /api/v1/events: the merchant's catch-up feed. */
const eventFeedRoute: FastifyPluginAsync<{ webhooks: WebhookService }> = async (scope, { webhooks }) => {
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
      const since = new Date(request.query.since);
      // Valid ISO 8601 can still be outside what the database stores (year 0000).
      if (Number.isNaN(since.getTime()) || since.getUTCFullYear() < 1970 || since.getUTCFullYear() > 9999) {
        throw new ApiError("INVALID_REQUEST", "since must be an ISO 8601 timestamp from 1970 on");
      }
      return { success: true, data: await webhooks.eventsSince(request.merchant.groupId, since, limit) };
    },
  );
};

export default eventFeedRoute;
