import type { FastifyInstance } from "fastify";
import { notFound } from "../../http/errors.ts";
import type { Services } from "../../services.ts";
import { type PaymentRow, toPaymentResource, UUID_PATTERN } from "../payment.ts";
import {
  errorResponses,
  merchantSecurity,
  paymentIdParamsSchema,
  paymentResourceSchema,
  successEnvelope,
} from "../schemas.ts";

/** The caller's payment, or 404 for unknown, malformed and other groups' ids alike (§4.3, §5). */
export async function findOwnPayment(services: Services, groupId: string, id: string): Promise<PaymentRow> {
  if (!UUID_PATTERN.test(id)) throw notFound();
  const [row] = await services.db.query<PaymentRow>(
    "SELECT * FROM payments WHERE id = $1 AND group_id = $2",
    [id, groupId],
  );
  if (!row) throw notFound();
  return row;
}

export default function getPaymentRoute(app: FastifyInstance, services: Services) {
  app.get<{ Params: { id: string } }>(
    "/api/v1/payments/:id",
    {
      schema: {
        summary: "Get a payment's status",
        tags: ["payments"],
        security: merchantSecurity,
        params: paymentIdParamsSchema,
        response: { 200: successEnvelope(paymentResourceSchema), ...errorResponses },
      },
    },
    async (request) => {
      const payment = await findOwnPayment(services, request.merchant.groupId, request.params.id);
      return { success: true, data: toPaymentResource(payment) };
    },
  );
}
