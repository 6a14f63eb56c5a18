// The merchant API, /api/v1: what a merchant's server calls with its key pair.
import rateLimit from "@fastify/rate-limit";
import type { FastifyPluginAsync } from "fastify";
import type { Merchant } from "../../merchants/auth.ts";
import brandingRoutes from "../../merchants/branding/routes/api.ts";
import authTestRoute from "../../merchants/routes/auth-test.ts";
import paymentLinkRoutes from "../../payment-links/routes/api.ts";
import cancelPaymentRoute from "../../payments/routes/cancel.ts";
import createPaymentRoute from "../../payments/routes/create.ts";
import disputeRoutes from "../../payments/routes/disputes.ts";
import paymentEventRoutes from "../../payments/routes/events.ts";
import getPaymentRoute from "../../payments/routes/get.ts";
import listPaymentsRoute from "../../payments/routes/list.ts";
import refundRoutes from "../../payments/routes/refunds.ts";
import triggerRoute, { type SandboxSimulator } from "../../payments/routes/trigger.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { limitCounting, refusedAs } from "../../platform/http/rate-limit-store.ts";
import type { RedisLink } from "../../platform/limits/redis-link.ts";
import { merchantErasureRoute } from "../../privacy/routes/erasure.ts";
import type { Sandbox } from "../../sandbox/app.ts";
import type { ProcessorSimulation } from "../../sandbox/simulation.ts";
import webhookEndpointRoutes from "../../webhooks/routes/endpoints.ts";
import eventFeedRoute from "../../webhooks/routes/feed.ts";
import webhookSettingsRoutes from "../../webhooks/routes/settings.ts";
import eventStreamRoute from "../../webhooks/routes/stream.ts";
import type { Services } from "../services.ts";

// Set by this surface's onRequest hook before any of its routes runs.
declare module "fastify" {
  interface FastifyRequest {
    merchant: Merchant;
  }
}

/** `checkout trigger` reaches the in-process sandbox through the service, never on its own port. */
const sandboxSimulator = (sandbox: Sandbox): SandboxSimulator => {
  // As the sandbox's own endpoints do: every change is stored before the answer.
  const stored = async (id: string, change: (simulation: ProcessorSimulation) => unknown) => {
    const simulation = sandbox.simulationOf(id);
    if (!simulation) throw new Error(`the sandbox has no object ${id}`);
    change(simulation);
    await sandbox.state.flush();
  };
  return {
    pay: (checkoutId, outcome) => stored(checkoutId, (simulation) => simulation.attempt(checkoutId, outcome)),
    refund: (paymentId) => stored(paymentId, (simulation) => simulation.refund(paymentId, undefined)),
    dispute: (paymentId) => stored(paymentId, (simulation) => simulation.dispute(paymentId)),
  };
};

/**
 * The merchant API. Auth: the key pair (X-Public-Key, X-Secret-Key), failed attempts limited per
 * address. Bodies: JSON only. Limits: RATE_LIMIT_MAX requests a window per key, shared through
 * Redis when there is one. A route is added here, one line.
 */
export const merchantApi: FastifyPluginAsync<{
  services: Services;
  redis: RedisLink | undefined;
  sandbox: Sandbox | undefined;
}> = async (api, { services, redis, sandbox }) => {
  const { config, payments, webhooks, merchantAuth } = services;
  api.addHook("onRequest", async (request, reply) => {
    request.merchant = await merchantAuth.authenticate(
      { publicKey: request.headers["x-public-key"], secretKey: request.headers["x-secret-key"] },
      request.ip,
    );
    reply.header("cache-control", "no-store");
  });
  // Bodies are JSON (docs/api.md, "Conventions"); Fastify would otherwise also accept text/plain.
  api.addHook("preValidation", (request, _reply, done) => {
    const contentType = request.headers["content-type"];
    if (request.body !== undefined && contentType && !/^application\/json\s*(;|$)/i.test(contentType)) {
      done(new ApiError("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be application/json"));
      return;
    }
    done();
  });
  await api.register(rateLimit, {
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowSeconds * 1000,
    keyGenerator: (request) => request.merchant?.publicKey ?? request.ip,
    ...limitCounting(redis, "checkout-rate-limit:"),
    errorResponseBuilder: refusedAs("Rate limit exceeded"),
  });

  await api.register(authTestRoute, { merchants: services.merchants });
  await api.register(createPaymentRoute, { creation: payments.creation });
  await api.register(getPaymentRoute, { queries: payments.queries });
  await api.register(listPaymentsRoute, { queries: payments.queries });
  await api.register(cancelPaymentRoute, { creation: payments.creation });
  await api.register(paymentEventRoutes, { queries: payments.queries, webhooks });
  await api.register(refundRoutes, { refunds: payments.refunds });
  await api.register(disputeRoutes, { disputes: payments.disputes });
  await api.register(paymentLinkRoutes, { links: services.paymentLinks });
  await api.register(webhookSettingsRoutes, { settings: services.webhookSettings });
  await api.register(webhookEndpointRoutes, { endpoints: services.webhookEndpoints });
  await api.register(brandingRoutes, { branding: services.branding });
  await api.register(eventFeedRoute, { webhooks });
  await api.register(eventStreamRoute, { db: services.db, keys: merchantAuth });
  await api.register(merchantErasureRoute, { erasure: services.privacy.erasure });
  if (sandbox) {
    await api.register(triggerRoute, {
      creation: payments.creation,
      queries: payments.queries,
      expiry: payments.expiry,
      simulator: sandboxSimulator(sandbox),
      publicUrl: config.publicUrl,
    });
  }
};
