import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import { adminSecurity } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import type { MerchantsService } from "../service.ts";
import { displayName, groupParams, safeSiteInput } from "./schemas.ts";

/** Admin API: groups and their webhook signing secret. */
const groupRoutes: FastifyPluginAsync<{ merchants: MerchantsService; publicUrl: string }> = async (
  scope,
  { merchants, publicUrl },
) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.post(
    "/admin/v1/groups",
    {
      schema: {
        summary: "Create a group with its SafeSites and first key pair",
        tags: ["admin"],
        security: adminSecurity,
        body: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: { name: displayName, safeSites: { type: "array", maxItems: 50, items: safeSiteInput } },
        } as const,
      },
    },
    async (request, reply) => {
      const safeSites = request.body.safeSites ?? [{ name: "Default", url: publicUrl, isActive: true }];
      const group = await merchants.createGroup({ name: request.body.name, safeSites }, (created) =>
        byAdminToken(request, created.groupId, "group.created", created.groupId, { name: created.groupName }),
      );
      return reply.code(201).send({ success: true, data: group });
    },
  );

  app.get(
    "/admin/v1/groups",
    {
      schema: {
        summary: "List groups, newest first",
        tags: ["admin"],
        security: adminSecurity,
        querystring: {
          type: "object",
          properties: {
            limit: {
              type: "string",
              pattern: describedPattern(
                "^(500|[1-4][0-9]{2}|[1-9][0-9]?)$",
                "must be a whole number from 1 to 500",
              ),
              description: "1 to 500; 100 when left out",
            },
          },
        } as const,
      },
    },
    async (request) => ({
      success: true,
      data: await merchants.groups(request.query.limit === undefined ? 100 : Number(request.query.limit)),
    }),
  );

  app.get(
    "/admin/v1/groups/:groupId",
    { schema: { summary: "Get a group", tags: ["admin"], security: adminSecurity, params: groupParams } },
    async (request) => ({ success: true, data: await merchants.getGroup(request.params.groupId) }),
  );

  app.post(
    "/admin/v1/groups/:groupId/webhook-secret/rotate",
    {
      schema: {
        summary: "Issue a new webhook signing secret; the old one keeps signing during the grace period",
        tags: ["admin"],
        security: adminSecurity,
        params: groupParams,
        body: {
          type: ["object", "null"],
          additionalProperties: false,
          properties: { graceSeconds: { type: "integer", minimum: 0, maximum: 604800 } },
        } as const,
      },
    },
    async (request) => ({
      success: true,
      data: await merchants.rotateWebhookSecret(
        request.params.groupId,
        request.body?.graceSeconds ?? 86400,
        () =>
          byAdminToken(request, request.params.groupId, "webhook_secret.rotated", null, {
            graceSeconds: request.body?.graceSeconds ?? 86400,
          }),
      ),
    }),
  );
};

export default groupRoutes;
