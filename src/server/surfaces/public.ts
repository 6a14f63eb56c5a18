// What anyone may call without a key: probes and metrics, the API's description, the customer's
// pages on a SafeSite, and the processors' events.
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import logoRoute from "../../merchants/branding/routes/logo.ts";
import { finishOpenApiDocument, SWAGGER_UI_STYLE_HASH } from "../../openapi/document.ts";
import checkoutRoutes from "../../pages/customer/routes.ts";
import { homePage } from "../../pages/kit/service-pages.ts";
import paymentLinkPage from "../../payment-links/routes/page.ts";
import processorWebhookRoute from "../../payments/routes/processor-webhooks.ts";
import { hashSecret } from "../../platform/crypto/secret-hash.ts";
import { limitCounting } from "../../platform/http/rate-limit-store.ts";
import type { RedisLink } from "../../platform/limits/redis-link.ts";
import metricsRoutes from "../../platform/metrics/routes.ts";
import healthRoutes from "../health/routes.ts";
import { isLocalUrl } from "../http-app.ts";
import type { Services } from "../services.ts";

/**
 * Health probes and metrics, on every instance, workers-only ones included. Auth: none for the
 * probes; METRICS_TOKEN, when set, for /metrics.
 */
export const probes: FastifyPluginAsync<{
  services: Services;
  redis: RedisLink | undefined;
  isDraining: () => boolean;
}> = async (app, { services, redis, isDraining }) => {
  const { config } = services;
  await app.register(metricsRoutes, {
    metrics: services.metrics,
    tokenHash: config.metricsToken ? hashSecret(config.metricsToken) : undefined,
  });
  // Probes arrive every few seconds: their request lines are debug, shown only at LOG_LEVEL=debug.
  const probeLogLevel = config.logLevel === "debug" || config.logLevel === "trace" ? config.logLevel : "warn";
  await app.register(healthRoutes, {
    db: services.db,
    version: config.version,
    redis,
    isDraining,
    logLevel: probeLogLevel,
    roles: config.serviceRoles,
    processors: () =>
      Object.fromEntries(
        services.processors.defaultRoute.map((name) => [
          name,
          { status: services.payments.breakers.status(name) },
        ]),
      ),
  });
};

/**
 * The OpenAPI document at /openapi.json and its explorer at /docs. On the root instance itself, not
 * in a scope of its own: the document lists the routes of every surface.
 */
export async function registerApiDocs(app: FastifyInstance, services: Services): Promise<void> {
  const { config } = services;
  await app.register(swagger, {
    // Shared schemas keep their names ($id) instead of def-0, def-1, ….
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) =>
      finishOpenApiDocument((documentObject as { openapiObject: Record<string, unknown> }).openapiObject, {
        publicUrl: config.publicUrl,
        local: isLocalUrl(config.publicUrl),
      }),
    openapi: {
      openapi: "3.1.0",
      info: { title: "Checkout Service API", version: config.version },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          publicKey: { type: "apiKey", in: "header", name: "X-Public-Key" },
          secretKey: { type: "apiKey", in: "header", name: "X-Secret-Key" },
          adminToken: { type: "http", scheme: "bearer" },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    // Its own scripts and styles only, and never inside someone else's frame.
    staticCSP: true,
    transformStaticCSP: (header) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        // The one <style> element Swagger UI writes at run time, by its hash: nothing else inline.
        .replace("style-src 'self' https:", `style-src 'self' https: '${SWAGGER_UI_STYLE_HASH}'`),
    // The explorer loads the document every client uses, not a copy under /docs.
    uiConfig: { urls: [{ url: "/openapi.json", name: "Checkout Service API" }] },
    uiHooks: {
      onRequest: async (_request, reply) => {
        reply.header("x-frame-options", "DENY");
      },
    },
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

/**
 * The customer's pages (the payment link, the way back, where a payment ended, a link's own page)
 * and the processors' signed events. Auth: none; each page's token or the processor's signature is
 * checked against what was stored. Limits: a link's page per address, as the API's rate limit.
 */
export const publicRoutes: FastifyPluginAsync<{ services: Services; redis: RedisLink | undefined }> = async (
  app,
  { services, redis },
) => {
  const { config, payments } = services;
  // The service's own address names where to go, instead of a JSON 404.
  app.get("/", { schema: { hide: true } }, async (_request, reply) => homePage(reply));
  await app.register(checkoutRoutes, {
    queries: payments.queries,
    processorEvents: payments.processorEvents,
    branding: services.branding,
  });
  await app.register(logoRoute, { branding: services.branding });
  await app.register(paymentLinkPage, {
    links: services.paymentLinks,
    branding: services.branding,
    rateLimit: {
      max: config.rateLimitMax,
      timeWindow: config.rateLimitWindowSeconds * 1000,
      ...limitCounting(redis, "checkout-link-rate-limit:"),
    },
  });
  await app.register(processorWebhookRoute, {
    processors: services.processors,
    processorEvents: payments.processorEvents,
  });
};
