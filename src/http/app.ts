import { randomUUID } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { Redis } from "ioredis";
import healthRoutes from "../health/routes.ts";
import adminRoutes from "../merchants/routes/admin.ts";
import authTestRoute from "../merchants/routes/auth-test.ts";
import cancelPaymentRoute from "../payments/routes/cancel.ts";
import createPaymentRoute from "../payments/routes/create.ts";
import getPaymentRoute from "../payments/routes/get.ts";
import type { Services } from "../services.ts";
import webhookEventRoutes from "../webhooks/routes/events.ts";
import type { AdminTokenState } from "./admin-auth.ts";
import { installErrorEnvelope } from "./error-handler.ts";
import { ApiError, errorResponseSchema } from "./errors.ts";

export interface AppOptions {
  adminToken: AdminTokenState;
  /** Shared rate-limit counters across instances; in-memory per instance without it. */
  redis?: Redis | undefined;
  /** Extra route groups (customer pages, processor intake, webhook API) mounted by their owners. */
  plugins?: ((app: FastifyInstance) => void | Promise<void>)[];
}

export const REDACTED_PATHS = [
  'req.headers["x-secret-key"]',
  "req.headers.authorization",
  'req.headers["stripe-signature"]',
  "secretKey",
  "webhookSecret",
  "adminToken",
];

export function loggerOptions(level: string): FastifyServerOptions["logger"] {
  return { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    bodyLimit: 64 * 1024,
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // Mistyped input is an error, never silently converted ("100" is not an amount).
    ajv: { customOptions: { coerceTypes: false, allErrors: false, allowUnionTypes: true } },
  });
  installErrorEnvelope(app);
  app.addSchema(errorResponseSchema);
  app.addHook("onResponse", async (request, reply) => {
    services.metrics.httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unknown",
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("content-type", services.metrics.registry.contentType);
    return services.metrics.registry.metrics();
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", "nosniff");
  });

  await app.register(swagger, {
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
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  healthRoutes(app, services);

  await app.register(async (api) => {
    api.addHook("onRequest", async (request, reply) => {
      request.merchant = await services.merchantAuth.authenticate(request);
      reply.header("cache-control", "no-store");
    });
    // Spec §4: bodies are JSON; Fastify would otherwise also accept text/plain.
    api.addHook("preValidation", async (request) => {
      const contentType = request.headers["content-type"];
      if (request.body !== undefined && contentType && !/^application\/json\s*(;|$)/i.test(contentType)) {
        throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Request bodies must be application/json");
      }
    });
    await api.register(rateLimit, {
      max: config.rateLimitMax,
      timeWindow: config.rateLimitWindowSeconds * 1000,
      keyGenerator: (request) => request.merchant?.publicKey ?? request.ip,
      ...(options.redis && { redis: options.redis, nameSpace: "checkout-rate-limit:" }),
      // A broken counter store must not stop payments.
      skipOnError: true,
      errorResponseBuilder: (_request, context) =>
        new ApiError("RATE_LIMIT_EXCEEDED", `Rate limit exceeded; retry in ${context.after}`),
    });
    authTestRoute(api, services);
    createPaymentRoute(api, services);
    getPaymentRoute(api, services);
    cancelPaymentRoute(api, services);
    webhookEventRoutes(api, services);
  });

  adminRoutes(app, services, options.adminToken);
  for (const plugin of options.plugins ?? []) await app.register(async (scope) => plugin(scope));
  return app;
}
