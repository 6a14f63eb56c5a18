import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import { CURRENCIES } from "../../platform/format/money.ts";
import { adminSecurity, errorResponses, successEnvelope, uuidParam } from "../../platform/http/schemas.ts";
import { PROCESSOR_NAMES } from "../../processor/catalog.ts";
import type { ProcessorRouting } from "../routing/service.ts";

const params = {
  type: "object",
  required: ["groupId"],
  properties: { groupId: uuidParam("Group") },
} as const;

const routeSchema = {
  type: "object",
  required: ["processors"],
  additionalProperties: false,
  properties: {
    currency: {
      type: "string",
      maxLength: 10,
      description: `A payment currency (${CURRENCIES.join(", ")}, any case); none: every payment`,
    },
    processors: {
      type: "array",
      maxItems: PROCESSOR_NAMES.length,
      items: { type: "string", maxLength: 40 },
      description: `Processors to try in turn (${PROCESSOR_NAMES.join(", ")}), each enabled here`,
    },
  },
} as const;

const routingSchema = {
  type: "object",
  required: ["groupId", "routes", "defaultRoute"],
  properties: {
    groupId: { type: "string", format: "uuid" },
    defaultRoute: {
      type: "array",
      items: { type: "string", enum: [...PROCESSOR_NAMES] },
      description:
        "The installation's default route (PROCESSOR's order), which a group without routes follows",
    },
    routes: {
      type: "array",
      items: {
        type: "object",
        required: ["processors"],
        properties: {
          currency: { type: "string", enum: [...CURRENCIES] },
          processors: { type: "array", items: { type: "string", enum: [...PROCESSOR_NAMES] } },
        },
      },
    },
  },
} as const;

/** A group's processor routes, through the admin API. */
const routingRoutes: FastifyPluginAsync<{ routing: ProcessorRouting }> = async (scope, { routing }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  const path = "/admin/v1/groups/:groupId/routing";
  const response = { 200: successEnvelope(routingSchema), ...errorResponses };

  app.get(
    path,
    {
      schema: {
        summary: "A group's processor routes (none: the installation's default route)",
        tags: ["admin"],
        security: adminSecurity,
        params,
        response,
      },
    },
    async (request) => ({ success: true as const, data: await routing.get(request.params.groupId) }),
  );

  app.put(
    path,
    {
      schema: {
        summary: "Replace a group's processor routes: the first whose currency matches a payment applies",
        tags: ["admin"],
        security: adminSecurity,
        params,
        body: {
          type: "object",
          required: ["routes"],
          additionalProperties: false,
          properties: { routes: { type: "array", maxItems: 20, items: routeSchema } },
        } as const,
        response,
      },
    },
    async (request) => ({
      success: true as const,
      data: await routing.set(request.params.groupId, request.body.routes, (routes) =>
        byAdminToken(request, request.params.groupId, "routing.set", request.params.groupId, { routes }),
      ),
    }),
  );

  app.delete(
    path,
    {
      schema: {
        summary: "Return a group to the installation's default route",
        tags: ["admin"],
        security: adminSecurity,
        params,
        response,
      },
    },
    async (request) => ({
      success: true as const,
      data: await routing.set(request.params.groupId, [], () =>
        byAdminToken(request, request.params.groupId, "routing.cleared", request.params.groupId),
      ),
    }),
  );
};

export default routingRoutes;
