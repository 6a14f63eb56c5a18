import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import type { Refunds } from "../refunds/service.ts";
import { refundBodySchema, refundResourceSchema } from "../schemas.ts";
import { paymentParams } from "./get.ts";
import { replayedHeader } from "./replayed.ts";

/** POST and GET /api/v1/payments/:id/refunds. */
const refundRoutes: FastifyPluginAsync<{ refunds: Refunds }> = async (scope, { refunds }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.post(
    "/api/v1/payments/:id/refunds",
    {
      schema: {
        summary: "Refund a payment, in full or in part",
        description:
          "Allowed while the payment is succeeded or partially_refunded, up to what remains. The answer comes " +
          "within 10 s: `succeeded`, or `pending` while the processor has not confirmed (or did not answer: " +
          "the service asks again under the same processor key, so the refund is carried out at most once). " +
          "A definite refusal is 502 PROCESSOR_ERROR and changes nothing. The payment's status and " +
          "amountRefunded change when the processor confirms the refund (payment.refunded).",
        tags: ["refunds"],
        security: merchantSecurity,
        params: paymentParams,
        headers: {
          type: "object",
          properties: { "idempotency-key": { type: "string", minLength: 1, maxLength: 255 } },
        } as const,
        body: refundBodySchema,
        response: {
          201: successEnvelope(refundResourceSchema),
          ...errorResponses,
          409: { $ref: "ErrorResponse#" },
          502: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const answer = await refunds.create(request.merchant.groupId, request.params.id, request.body ?? {}, {
        requestedBy: `api_key:${request.merchant.publicKey}`,
        idempotencyKey: request.headers["idempotency-key"],
        audit: (made) =>
          byApiKey(request, "payment.refunded", request.params.id, {
            refundId: made.refundId,
            amount: made.amount,
          }),
      });
      replayedHeader(reply, answer);
      return reply.code(201).send({ success: true as const, data: answer.result });
    },
  );

  app.get(
    "/api/v1/payments/:id/refunds",
    {
      schema: {
        summary: "List a payment's refunds, including those made at the processor",
        tags: ["refunds"],
        security: merchantSecurity,
        params: paymentParams,
        response: {
          200: successEnvelope({
            type: "object",
            required: ["refunds"],
            properties: { refunds: { type: "array", items: refundResourceSchema } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: { refunds: await refunds.list(request.merchant.groupId, request.params.id) },
    }),
  );
};

export default refundRoutes;
