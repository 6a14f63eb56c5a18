import type { FastifyInstance } from "fastify";
import { ApiError, notFound } from "../../http/errors.ts";
import type { Services } from "../../services.ts";
import { UUID_PATTERN } from "../payment.ts";
import { errorResponses, merchantSecurity, paymentIdParamsSchema, successEnvelope } from "../schemas.ts";
import { applyTransition } from "../transitions.ts";
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
      const { id } = request.params;
      if (!UUID_PATTERN.test(id)) throw notFound();
      const result = await applyTransition(services.db, {
        paymentId: id,
        groupId,
        to: "cancelled",
        from: ["pending", "processing"],
        reason: "merchant_cancel",
      });
      if (!result) {
        // Not cancelled: either not the caller's payment (404) or already past processing.
        await findOwnPayment(services, groupId, id);
        throw new ApiError(
          "ALREADY_COMPLETED",
          "Only pending or processing payments can be cancelled; read the payment for its current status",
        );
      }
      if (result.queuedWebhook) services.outbox.wake();
      return {
        success: true,
        data: { id, status: "cancelled", message: "Payment cancelled" },
      };
    },
  );
}
