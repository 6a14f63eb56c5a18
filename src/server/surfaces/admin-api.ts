// The admin API, /admin/v1: what an operator calls with the admin token.
import type { FastifyPluginAsync } from "fastify";
import accountAdminRoutes from "../../accounts/routes/admin.ts";
import type { AdminAuthenticator } from "../../merchants/admin-token.ts";
import groupRoutes from "../../merchants/routes/groups.ts";
import keyRoutes from "../../merchants/routes/keys.ts";
import safeSiteRoutes from "../../merchants/routes/safe-sites.ts";
import reconciliationRoutes from "../../payments/routes/reconciliation.ts";
import routingRoutes from "../../payments/routes/routing.ts";
import { adminErasureRoute } from "../../privacy/routes/erasure.ts";
import failedDeliveriesRoute from "../../webhooks/routes/failed-deliveries.ts";
import type { Services } from "../services.ts";

/**
 * The admin API. Auth: the admin token as a bearer token, failed attempts limited per address
 * (30 a minute, then 429) before any comparison. A route is added here, one line.
 */
export const adminApi: FastifyPluginAsync<{ services: Services; admin: AdminAuthenticator }> = async (
  adminScope,
  { services, admin },
) => {
  const { merchants, payments } = services;
  adminScope.addHook("onRequest", (request) => admin.authenticate(request.headers.authorization, request.ip));
  await adminScope.register(groupRoutes, { merchants, publicUrl: services.config.publicUrl });
  await adminScope.register(safeSiteRoutes, { merchants });
  await adminScope.register(keyRoutes, { merchants });
  await adminScope.register(reconciliationRoutes, {
    reconciliation: payments.reconciliation,
    refunds: payments.refunds,
    orphans: payments.orphans,
  });
  await adminScope.register(failedDeliveriesRoute, { webhooks: services.webhooks });
  await adminScope.register(routingRoutes, { routing: payments.routing });
  await adminScope.register(accountAdminRoutes, { accounts: services.accounts });
  await adminScope.register(adminErasureRoute, { erasure: services.privacy.erasure });
};
