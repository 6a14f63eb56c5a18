import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../../platform/http/schemas.ts";
import { type Branding, MAX_LOGO_BYTES } from "../service.ts";

const brandingSchema = {
  type: "object",
  required: ["displayName", "brandColor", "logoUrl", "receipts", "replyTo"],
  properties: {
    displayName: { type: ["string", "null"], description: "The name customers see; null: the group's name" },
    brandColor: { type: ["string", "null"], description: "#rrggbb" },
    logoUrl: { type: ["string", "null"] },
    receipts: {
      type: "boolean",
      description: "E-mail receipts to customers (needs SMTP_URL, or MAIL_DIR with the sandbox processor)",
    },
    replyTo: { type: ["string", "null"], description: "Where customers' replies to receipts go" },
  },
} as const;

// Base64 takes 4 characters for every 3 bytes; the rest of the body is small.
const LOGO_CHARACTERS = Math.ceil(MAX_LOGO_BYTES / 3) * 4 + 100;

const brandingBody = {
  type: "object",
  properties: {
    displayName: { type: ["string", "null"], maxLength: 200 },
    brandColor: { type: ["string", "null"], maxLength: 7, description: "#rrggbb" },
    logo: {
      type: ["string", "null"],
      maxLength: LOGO_CHARACTERS,
      description: `A data URL of a PNG or JPEG image, at most ${MAX_LOGO_BYTES} bytes (judged by its bytes; never SVG)`,
    },
    receipts: { type: "boolean" },
    replyTo: {
      type: ["string", "null"],
      maxLength: 254,
      description: "Your address for customers' replies to receipts (null: none)",
    },
  },
} as const;

/** docs/api.md, "Branding": the group's branding through the merchant API. */
const brandingRoutes: FastifyPluginAsync<{ branding: Branding }> = async (scope, { branding }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const response = { 200: successEnvelope(brandingSchema), ...errorResponses };
  app.get(
    "/api/v1/branding",
    {
      schema: {
        summary: "Get the group's branding",
        tags: ["branding"],
        security: merchantSecurity,
        response,
      },
    },
    async (request) => ({ success: true as const, data: await branding.get(request.merchant.groupId) }),
  );
  app.put(
    "/api/v1/branding",
    {
      // Large enough for the largest logo allowed, and no larger.
      bodyLimit: LOGO_CHARACTERS + 4096,
      schema: {
        summary: "Change the group's branding (given fields only; null clears one)",
        tags: ["branding"],
        security: merchantSecurity,
        body: brandingBody,
        response,
      },
    },
    async (request) => {
      const { logo, ...rest } = request.body;
      // The audit names what changed, not the image itself.
      const detail = { ...rest, ...(logo !== undefined && { logo: logo === null ? null : "replaced" }) };
      const data = await branding.change(request.merchant.groupId, request.body, () =>
        byApiKey(request, "branding.changed", null, detail),
      );
      return { success: true as const, data };
    },
  );
};

export default brandingRoutes;
