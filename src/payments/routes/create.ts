import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { ApiError } from "../../platform/http/errors.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import type { PaymentCreation } from "../create/service.ts";
import { createPaymentBodySchema, createPaymentResultSchema } from "../schemas.ts";
import { replayedHeader } from "./replayed.ts";

/** POST /api/v1/payments/create. */
const createPaymentRoute: FastifyPluginAsync<{ creation: PaymentCreation }> = async (scope, { creation }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.post(
    "/api/v1/payments/create",
    {
      schema: {
        summary: "Create a payment",
        tags: ["payments"],
        security: merchantSecurity,
        headers: {
          type: "object",
          properties: { "idempotency-key": { type: "string", minLength: 1, maxLength: 255 } },
        } as const,
        body: createPaymentBodySchema,
        response: {
          200: successEnvelope(createPaymentResultSchema),
          ...errorResponses,
          409: { $ref: "ErrorResponse#" },
          502: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      // The spec answers a create without an e-mail as the processor would: 502, asking nobody.
      if (body.customerEmail === undefined) {
        throw new ApiError(
          "PROCESSOR_ERROR",
          "The processor rejected the payment: customerEmail is required",
          undefined,
          { clientFault: true },
        );
      }
      const answer = await creation.create(
        request.merchant.groupId,
        { ...body, customerEmail: body.customerEmail },
        request.headers["idempotency-key"],
      );
      replayedHeader(reply, answer);
      return { success: true as const, data: answer.result };
    },
  );
};

export default createPaymentRoute;
