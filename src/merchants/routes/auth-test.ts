import type { FastifyPluginAsync } from "fastify";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import type { MerchantsService } from "../service.ts";

const resultSchema = {
  type: "object",
  required: ["authenticated", "groupId", "groupName", "safeSites", "activeSafeSiteCount", "message"],
  properties: {
    authenticated: { type: "boolean" },
    groupId: { type: "string", format: "uuid" },
    groupName: { type: "string" },
    safeSites: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "name", "isActive"],
        properties: { id: { type: "string" }, name: { type: "string" }, isActive: { type: "boolean" } },
      },
    },
    activeSafeSiteCount: { type: "integer" },
    message: { type: "string" },
  },
} as const;

/** GET /api/v1/auth/test. */
const authTestRoute: FastifyPluginAsync<{ merchants: MerchantsService }> = async (app, { merchants }) => {
  app.get(
    "/api/v1/auth/test",
    {
      schema: {
        summary: "Verify API keys and list SafeSites",
        tags: ["auth"],
        security: merchantSecurity,
        response: { 200: successEnvelope(resultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const group = await merchants.getGroup(request.merchant.groupId);
      const active = group.safeSites.filter((site) => site.isActive).length;
      return {
        success: true,
        data: {
          authenticated: true,
          groupId: group.groupId,
          groupName: group.groupName,
          // The key test shows no URLs: the payment link is the only place a SafeSite host appears.
          safeSites: group.safeSites.map(({ id, name, isActive }) => ({ id, name, isActive })),
          activeSafeSiteCount: active,
          message:
            active > 0
              ? `API keys are valid. ${active} SafeSite${active === 1 ? " is" : "s are"} ready to accept payments.`
              : "API keys are valid, but 0 SafeSites are ready: payments cannot be created until one is activated.",
        },
      };
    },
  );
};

export default authTestRoute;
