import type { FastifyPluginAsync } from "fastify";
import { adminSecurity } from "../../http/schemas.ts";
import type { PaymentsService } from "../service.ts";

/** GET /admin/v1/reconciliation: payments paid after they were closed, for the operator. */
const reconciliationRoute: FastifyPluginAsync<{ payments: PaymentsService }> = async (app, { payments }) => {
  app.get(
    "/admin/v1/reconciliation",
    {
      schema: {
        summary: "Payments paid after they were cancelled",
        tags: ["admin"],
        security: adminSecurity,
      },
    },
    async () => {
      const rows = await payments.reconciliationQueue(1000);
      return {
        success: true,
        data: rows.map((row) => ({
          transactionId: row.id,
          groupId: row.group_id,
          amount: row.amount,
          currency: row.currency,
          processorSessionId: row.processor_session_id,
          processorPaymentIntentId: row.processor_payment_intent_id,
          reason: row.reconciliation_reason,
          flaggedAt: row.updated_at.toISOString(),
        })),
      };
    },
  );
};

export default reconciliationRoute;
