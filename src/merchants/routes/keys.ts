import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { adminSecurity } from "../../platform/http/schemas.ts";
import type { MerchantsService } from "../service.ts";
import { groupParams } from "./schemas.ts";

/** Admin API: API key pairs. */
const keyRoutes: FastifyPluginAsync<{ merchants: MerchantsService }> = async (scope, { merchants }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.post(
    "/admin/v1/groups/:groupId/keys",
    {
      schema: {
        summary: "Issue a new key pair (the secret is shown only in this response)",
        tags: ["admin"],
        security: adminSecurity,
        params: groupParams,
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        success: true,
        data: await merchants.issueKey(request.params.groupId, (created) =>
          byAdminToken(request, request.params.groupId, "api_key.created", created.publicKey),
        ),
      }),
  );

  app.delete(
    "/admin/v1/keys/:publicKey",
    {
      schema: {
        summary: "Revoke a key pair at once",
        tags: ["admin"],
        security: adminSecurity,
        params: {
          type: "object",
          required: ["publicKey"],
          properties: { publicKey: { type: "string", maxLength: 200 } },
        } as const,
      },
    },
    async (request) => {
      const { publicKey } = request.params;
      const revoked = await merchants.revokeKey(publicKey, null, (groupId) =>
        groupId ? byAdminToken(request, groupId, "api_key.revoked", publicKey) : null,
      );
      if (!revoked) {
        throw new ApiError("NOT_FOUND", "No active key with that public key");
      }
      return { success: true, data: { publicKey, revoked: true } };
    },
  );
};

export default keyRoutes;
