import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import type { WebhookSettings } from "../settings.ts";

const settingsSchema = {
  type: "object",
  required: ["url"],
  properties: {
    url: {
      type: ["string", "null"],
      description: "Where events of payments without a webhookUrl of their own are delivered; null: nowhere",
    },
  },
} as const;

const settingsBody = {
  type: "object",
  required: ["url"],
  properties: {
    url: { type: ["string", "null"], minLength: 10, maxLength: 2000, pattern: "^https?://" },
  },
} as const;

/** docs/api.md, "Webhook settings": the group's webhook URL through the merchant API. */
const webhookSettingsRoutes: FastifyPluginAsync<{ settings: WebhookSettings }> = async (
  scope,
  { settings },
) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const response = { 200: successEnvelope(settingsSchema), ...errorResponses };
  app.get(
    "/api/v1/webhook-settings",
    {
      schema: {
        summary: "Get the group's webhook URL",
        tags: ["webhooks"],
        security: merchantSecurity,
        response,
      },
    },
    async (request) => ({ success: true as const, data: await settings.get(request.merchant.groupId) }),
  );
  app.put(
    "/api/v1/webhook-settings",
    {
      schema: {
        summary: "Set or clear the group's webhook URL",
        tags: ["webhooks"],
        security: merchantSecurity,
        body: settingsBody,
        response,
      },
    },
    async (request) => {
      const { url } = request.body;
      const data = await settings.set(request.merchant.groupId, url, () =>
        byApiKey(request, "webhook_settings.changed", null, { url }),
      );
      return { success: true as const, data };
    },
  );
};

export default webhookSettingsRoutes;
