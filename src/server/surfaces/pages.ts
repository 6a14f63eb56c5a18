// The merchant dashboard (/dashboard) and the operator console (/operator): server-rendered pages
// on PUBLIC_URL's host.

import { randomBytes } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import type { FastifyPluginAsync } from "fastify";
import { accountPages } from "../../pages/account/pages.ts";
import groupPages from "../../pages/console/groups.ts";
import operationsPages from "../../pages/console/operations.ts";
import brandingPages from "../../pages/dashboard/branding.ts";
import developerPages from "../../pages/dashboard/developers.ts";
import disputePages from "../../pages/dashboard/disputes.ts";
import overviewPage from "../../pages/dashboard/overview.ts";
import paymentDetailPages from "../../pages/dashboard/payment-detail.ts";
import paymentLinkPages from "../../pages/dashboard/payment-links.ts";
import paymentListPages from "../../pages/dashboard/payments.ts";
import privacyPages from "../../pages/dashboard/privacy.ts";
import userPages from "../../pages/dashboard/users.ts";
import { assetRoutes, installPageSupport, requireSignIn } from "../../pages/kit/plugin.ts";
import { limitCounting, refusedAs } from "../../platform/http/rate-limit-store.ts";
import type { RedisLink } from "../../platform/limits/redis-link.ts";
import { canMail } from "../../platform/mail/mailer.ts";
import { installationSecret } from "../../platform/settings/installation-secrets.ts";
import { isLocalUrl } from "../http-app.ts";
import type { Services } from "../services.ts";

/**
 * The pages. Auth: a signed-in session (a cookie signed with the installation's secret), a CSRF
 * token on every form, a strict CSP, on PUBLIC_URL's host only. The dashboard takes merchant users
 * (and limits the actions that send webhooks per group); the console takes operators.
 */
export const pages: FastifyPluginAsync<{ services: Services; redis: RedisLink | undefined }> = async (
  app,
  { services, redis },
) => {
  const { config, accounts, payments, webhooks, merchants, twoFactor } = services;
  // The stylesheet and script: outside the pages' scope, so no session is read to serve them.
  assetRoutes(app);
  const sessionSecret = await installationSecret(services.db, services.box, "page_session_secret", () =>
    randomBytes(32).toString("base64url"),
  );
  await app.register(async (web) => {
    await installPageSupport(web, {
      db: services.db,
      accounts,
      sessionSecret,
      secure: new URL(config.publicUrl).protocol === "https:",
      publicHost: isLocalUrl(config.publicUrl) ? null : new URL(config.publicUrl).host,
      sandbox: config.sandbox,
    });
    await web.register(accountPages, { accounts, twoFactor, kind: "merchant" });
    await web.register(accountPages, { accounts, twoFactor, kind: "operator" });

    await web.register(async (dashboard) => {
      dashboard.addHook("preValidation", requireSignIn(accounts, "merchant"));
      // Actions that make the service send webhooks are limited per group, as on the API.
      await dashboard.register(rateLimit, {
        global: false,
        hook: "preHandler",
        keyGenerator: (request) => request.principal?.groupId ?? request.ip,
        ...limitCounting(redis, "checkout-page-rate-limit:"),
        errorResponseBuilder: refusedAs("Too many requests"),
      });
      await dashboard.register(overviewPage, { queries: payments.queries });
      await dashboard.register(paymentListPages, { queries: payments.queries, breakers: payments.breakers });
      await dashboard.register(paymentDetailPages, { payments, webhooks });
      await dashboard.register(disputePages, { payments });
      await dashboard.register(developerPages, {
        merchants,
        webhooks,
        webhookSettings: services.webhookSettings,
        webhookEndpoints: services.webhookEndpoints,
        accounts,
      });
      await dashboard.register(paymentLinkPages, { links: services.paymentLinks });
      await dashboard.register(brandingPages, {
        branding: services.branding,
        canMail: canMail(config),
      });
      await dashboard.register(userPages, { accounts, twoFactor });
      await dashboard.register(privacyPages, { erasure: services.privacy.erasure });
    });

    await web.register(async (operatorConsole) => {
      operatorConsole.addHook("preValidation", requireSignIn(accounts, "operator"));
      await operatorConsole.register(groupPages, { merchants, accounts, routing: payments.routing });
      await operatorConsole.register(operationsPages, {
        db: services.db,
        redis,
        payments,
        webhooks,
        accounts,
      });
    });
  });
};
