import type { FastifyPluginAsync } from "fastify";
import { adminSecurity } from "../../http/schemas.ts";
import type { PaymentsService } from "../service.ts";

/** GET /admin/v1/reconciliation: paid-after-close payments and refused processor events. */
const reconciliationRoute: FastifyPluginAsync<{ payments: PaymentsService }> = async (app, { payments }) => {
  app.get(
    "/admin/v1/reconciliation",
    {
      schema: {
        summary:
          "Payments paid after they were closed, and processor events that did not match their payment",
        tags: ["admin"],
        security: adminSecurity,
      },
    },
    async () => ({ success: true, data: await payments.reconciliationQueue(1000) }),
  );
};

export default reconciliationRoute;
