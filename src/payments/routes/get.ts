import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { errorResponses, merchantSecurity, successEnvelope, uuidParam } from "../../platform/http/schemas.ts";
import type { PaymentQueries } from "../queries/service.ts";
import { paymentResourceSchema, toPaymentResource } from "../resource.ts";

export const paymentParams = {
  type: "object",
  required: ["id"],
  properties: { id: uuidParam("Payment") },
} as const;

/** GET /api/v1/payments/:id. */
const getPaymentRoute: FastifyPluginAsync<{ queries: PaymentQueries }> = async (scope, { queries }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.get(
    "/api/v1/payments/:id",
    {
      schema: {
        summary: "Get a payment's status",
        tags: ["payments"],
        security: merchantSecurity,
        params: paymentParams,
        response: { 200: successEnvelope(paymentResourceSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: toPaymentResource(await queries.getResource(request.merchant.groupId, request.params.id)),
    }),
  );
};

export default getPaymentRoute;
