import type { FastifyInstance } from "fastify";
import { ApiError } from "../../http/errors.ts";
import type { Services } from "../../services.ts";
import { errorResponses, merchantSecurity, paymentIdParamsSchema, successEnvelope } from "../schemas.ts";
import { transition } from "../transitions.ts";
import { findOwnPayment } from "./get.ts";

const resultSchema = {
  type: "object",
  required: ["id", "status", "message"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: { type: "string", const: "cancelled" },
    message: { type: "string" },
  },
} as const;

export default function cancelPaymentRoute(app: FastifyInstance, services: Services) {
  app.delete<{ Params: { id: string } }>(
    "/api/v1/payments/:id",
    {
      schema: {
        summary: "Cancel a pending or processing payment",
        description:
          "The hosted checkout link is not closed: it stays open until it expires. After ALREADY_COMPLETED, " +
          "read the payment before creating a replacement: the customer may already have paid.",
        tags: ["payments"],
        security: merchantSecurity,
        params: paymentIdParamsSchema,
        response: { 200: successEnvelope(resultSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const payment = await findOwnPayment(services, groupId, request.params.id);
      const result = await services.db.transaction((tx) =>
        transition(tx, {
          paymentId: payment.id,
          groupId,
          to: "cancelled",
          from: ["pending", "processing"],
          reason: "merchant_cancel",
        }),
      );
      if (!result) {
        throw new ApiError(
          "ALREADY_COMPLETED",
          "Only pending or processing payments can be cancelled; read the payment for its current status",
        );
      }
      if (result.queuedWebhook) services.outbox.wake();
      return {
        success: true,
        data: { id: payment.id, status: "cancelled", message: "Payment cancelled" },
      };
    },
  );
}
