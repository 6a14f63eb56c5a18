import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import type { PaymentCreation } from "../create/service.ts";
import { paymentParams } from "./get.ts";

const resultSchema = {
  type: "object",
  required: ["id", "status", "message"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { type: "string", const: "cancelled" },
    message: { type: "string" },
  },
} as const;

/** Cancel Payment: /api/v1/payments/:id with the delete method. */
const cancelPaymentRoute: FastifyPluginAsync<{ creation: PaymentCreation }> = async (scope, { creation }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.delete(
    "/api/v1/payments/:id",
    {
      schema: {
        summary: "Cancel a pending or processing payment",
        description:
          "The hosted checkout link is not closed: it stays open until it expires. After ALREADY_COMPLETED, " +
          "read the payment before creating a replacement: the customer may already have paid.",
        tags: ["payments"],
        security: merchantSecurity,
        params: paymentParams,
        response: { 200: successEnvelope(resultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      await creation.cancel(request.merchant.groupId, id, byApiKey(request, "payment.cancelled", id));
      return {
        success: true as const,
        data: { id, status: "cancelled" as const, message: "Payment cancelled" },
      };
    },
  );
};

export default cancelPaymentRoute;
