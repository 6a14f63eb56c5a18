import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import { adminSecurity, uuidParam } from "../../platform/http/schemas.ts";
import type { MerchantsService } from "../service.ts";
import { displayName, groupParams, safeSiteInput, siteUrl } from "./schemas.ts";

/** Admin API: a group's SafeSites. */
const safeSiteRoutes: FastifyPluginAsync<{ merchants: MerchantsService }> = async (scope, { merchants }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.post(
    "/admin/v1/groups/:groupId/safe-sites",
    {
      schema: {
        summary: "Add a SafeSite",
        tags: ["admin"],
        security: adminSecurity,
        params: groupParams,
        body: safeSiteInput,
      },
    },
    async (request, reply) => {
      const site = await merchants.addSafeSite(request.params.groupId, request.body, (added) =>
        byAdminToken(request, request.params.groupId, "safe_site.added", added.url, { name: added.name }),
      );
      return reply.code(201).send({ success: true, data: site });
    },
  );

  app.patch(
    "/admin/v1/safe-sites/:id",
    {
      schema: {
        summary: "Rename, move, activate or deactivate a SafeSite",
        tags: ["admin"],
        security: adminSecurity,
        params: { type: "object", required: ["id"], properties: { id: uuidParam("SafeSite") } } as const,
        body: {
          type: "object",
          additionalProperties: false,
          minProperties: 1,
          properties: { name: displayName, url: siteUrl, isActive: { type: "boolean" } },
        } as const,
      },
    },
    async (request) => ({
      success: true,
      data: await merchants.updateSafeSite(request.params.id, request.body, null, (site, groupId) =>
        byAdminToken(request, groupId, "safe_site.updated", site.url, { id: site.id, ...request.body }),
      ),
    }),
  );
};

export default safeSiteRoutes;
