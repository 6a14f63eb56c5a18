import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { adminSecurity } from "../../http/schemas.ts";
import type { WebhookService } from "../service.ts";

/** GET /admin/v1/deliveries/failed: what the operator may need to chase up. */
const failedDeliveriesRoute: FastifyPluginAsync<{ webhooks: WebhookService }> = async (
  scope,
  { webhooks },
) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.get(
    "/admin/v1/deliveries/failed",
    {
      schema: {
        summary: "Webhook deliveries that were dropped, across groups, newest first",
        tags: ["admin"],
        security: adminSecurity,
        querystring: {
          type: "object",
          properties: { limit: { type: "string", pattern: "^[0-9]{1,4}$" } },
        } as const,
      },
    },
    async (request) => {
      const limit = Math.min(Math.max(Number(request.query.limit ?? 100), 1), 1000);
      return { success: true, data: await webhooks.failedDeliveries(limit) };
    },
  );
};

export default failedDeliveriesRoute;
