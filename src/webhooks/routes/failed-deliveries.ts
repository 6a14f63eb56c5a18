import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import { adminSecurity, uuidParam } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import { recoverBodySchema, recoveryWindow } from "../../platform/http/window.ts";
import type { WebhookEvents } from "../module.ts";

/** GET /admin/v1/deliveries/failed and POST …/recover: the operator's view of dropped webhooks. */
const failedDeliveriesRoute: FastifyPluginAsync<{ webhooks: WebhookEvents }> = async (
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
          properties: {
            limit: {
              type: "string",
              pattern: describedPattern("^[0-9]{1,4}$", "must be a whole number (at most 9999)"),
            },
          },
        } as const,
      },
    },
    async (request) => {
      const limit = Math.min(Math.max(Number(request.query.limit ?? 100), 1), 1000);
      return { success: true, data: await webhooks.log.failedDeliveries(limit) };
    },
  );

  app.post(
    "/admin/v1/deliveries/recover",
    {
      schema: {
        summary: "Send again every event, of one group or all, whose deliveries all failed in a time window",
        tags: ["admin"],
        security: adminSecurity,
        body: {
          ...recoverBodySchema,
          properties: { ...recoverBodySchema.properties, groupId: uuidParam("Group") },
        } as const,
      },
    },
    async (request, reply) => {
      const window = recoveryWindow(request.body);
      const groupId = request.body.groupId ?? null;
      const result = await webhooks.replays.recover({ groupId, ...window }, (queued) =>
        byAdminToken(request, groupId, "webhooks.recovered", groupId, { ...window, queued }),
      );
      return reply.code(202).send({ success: true, data: result });
    },
  );
};

export default failedDeliveriesRoute;
