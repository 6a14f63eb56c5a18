// The composition root: builds every service once and registers each module as a Fastify plugin.
// Nothing else wires modules together.
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import checkoutRoutes from "./checkout/routes.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { openDatabase } from "./db/open.ts";
import healthRoutes from "./health/routes.ts";
import { installErrorEnvelope } from "./http/error-handler.ts";
import { ApiError, errorResponseSchema } from "./http/errors.ts";
import { loggerOptions } from "./http/logger.ts";
import { type AdminTokenState, authenticateAdmin, resolveAdminToken } from "./merchants/admin-token.ts";
import { MerchantAuthenticator } from "./merchants/auth.ts";
import authTestRoute from "./merchants/routes/auth-test.ts";
import groupRoutes from "./merchants/routes/groups.ts";
import keyRoutes from "./merchants/routes/keys.ts";
import safeSiteRoutes from "./merchants/routes/safe-sites.ts";
import { MerchantsService } from "./merchants/service.ts";
import { Metrics } from "./metrics/metrics.ts";
import metricsRoutes from "./metrics/routes.ts";
import { startExpirySweeper } from "./payments/expiry.ts";
import cancelPaymentRoute from "./payments/routes/cancel.ts";
import createPaymentRoute from "./payments/routes/create.ts";
import paymentEventRoutes from "./payments/routes/events.ts";
import getPaymentRoute from "./payments/routes/get.ts";
import reconciliationRoute from "./payments/routes/reconciliation.ts";
import { PaymentsService } from "./payments/service.ts";
import processorIntakeRoute from "./processor/intake.ts";
import type { Processor } from "./processor/processor.ts";
import { stripeProcessor } from "./processor/stripe-processor.ts";
import { createSandbox, type Sandbox } from "./sandbox/app.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { WebhookOutbox } from "./webhooks/outbox.ts";
import failedDeliveriesRoute from "./webhooks/routes/failed-deliveries.ts";
import eventFeedRoute from "./webhooks/routes/feed.ts";
import type { Resolver } from "./webhooks/safe-connect.ts";
import { WebhookService } from "./webhooks/service.ts";

/** Everything the interfaces and workers share; built once per running service. */
export interface Services {
  config: Config;
  db: Database;
  processor: Processor;
  outbox: WebhookOutbox;
  metrics: Metrics;
  payments: PaymentsService;
  webhooks: WebhookService;
  merchants: MerchantsService;
  merchantAuth: MerchantAuthenticator;
}

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  url: string;
  adminToken: AdminTokenState;
  sandbox?: Sandbox | undefined;
  sandboxUrl?: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  /** An already-open database (tests); otherwise opened from the config. */
  db?: Database;
  /** Replaces the Stripe adapter (tests of processor failures). */
  processor?: Processor;
  /** Skip background workers (tests that drive them by hand). */
  workers?: boolean;
  /** Replaces DNS for webhook sends (tests of the unreachable-host rule). */
  webhookResolver?: Resolver;
}

const listeningUrl = (app: FastifyInstance): string => {
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
};

function createHttpApp(config: Config): FastifyInstance {
  return Fastify({
    logger: loggerOptions(config.logLevel),
    bodyLimit: 64 * 1024,
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // Mistyped input is an error, never silently converted ("100" is not an amount).
    ajv: { customOptions: { coerceTypes: false, allErrors: false, allowUnionTypes: true } },
  });
}

function buildServices(
  config: Config,
  db: Database,
  processor: Processor,
  log: FastifyBaseLogger,
): Omit<Services, "metrics"> & { metrics: Metrics } {
  const outbox = new WebhookOutbox();
  const webhooks = new WebhookService(db, outbox);
  const merchantAuth = new MerchantAuthenticator(db);
  return {
    config,
    db,
    processor,
    outbox,
    metrics: new Metrics(() => webhooks.queueDepth()),
    payments: new PaymentsService({ db, processor, outbox, config, log }),
    webhooks,
    merchants: new MerchantsService(db, merchantAuth.forget),
    merchantAuth,
  };
}

/** Every route of the service, each module a plugin, under the hooks its callers need. */
async function registerRoutes(
  app: FastifyInstance,
  services: Services,
  adminToken: AdminTokenState,
  redis: Redis | undefined,
): Promise<void> {
  const { config, metrics, payments, webhooks, merchants, merchantAuth } = services;
  installErrorEnvelope(app);
  app.addSchema(errorResponseSchema);
  app.addHook("onResponse", async (request, reply) => {
    metrics.httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unknown",
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", "nosniff");
  });
  await app.register(metricsRoutes, { metrics });

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

  await app.register(healthRoutes, { db: services.db, version: config.version });

  // The merchant API: API keys, JSON bodies, a rate limit per key.
  await app.register(async (api) => {
    api.addHook("onRequest", async (request, reply) => {
      request.merchant = await merchantAuth.authenticate(request);
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
      ...(redis && { redis, nameSpace: "checkout-rate-limit:" }),
      // A broken counter store must not stop payments.
      skipOnError: true,
      errorResponseBuilder: (_request, context) =>
        new ApiError("RATE_LIMIT_EXCEEDED", `Rate limit exceeded; retry in ${context.after}`),
    });
    await api.register(authTestRoute, { merchants });
    await api.register(createPaymentRoute, { payments });
    await api.register(getPaymentRoute, { payments });
    await api.register(cancelPaymentRoute, { payments });
    await api.register(paymentEventRoutes, { payments, webhooks });
    await api.register(eventFeedRoute, { webhooks });
  });

  // The admin API: the operator's bearer token.
  await app.register(async (admin) => {
    admin.addHook("onRequest", async (request) => authenticateAdmin(adminToken, request));
    await admin.register(groupRoutes, { merchants, publicUrl: config.publicUrl });
    await admin.register(safeSiteRoutes, { merchants });
    await admin.register(keyRoutes, { merchants });
    await admin.register(reconciliationRoute, { payments });
    await admin.register(failedDeliveriesRoute, { webhooks });
  });

  await app.register(checkoutRoutes, { payments });
  await app.register(processorIntakeRoute, { processor: services.processor, payments });
}

/** Starts the whole service: database, migrations, sandbox processor, HTTP, workers. */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const db = options.db ?? (await openDatabase(config));
  const stoppers: (() => Promise<void>)[] = [];
  try {
    await migrate(db);
    const adminToken = await resolveAdminToken(db, config.adminToken);

    let serviceUrl: string | undefined;
    let sandbox: Sandbox | undefined;
    let sandboxUrl: string | undefined;
    if (config.processor === "sandbox" && !options.processor) {
      sandbox = await createSandbox({
        eventsUrl: () => serviceUrl && `${serviceUrl}/processor/webhooks/stripe`,
        webhookSecret: config.stripeWebhookSecret,
        logLevel: config.logLevel,
      });
      await sandbox.app.listen({ port: config.sandboxPort, host: config.host });
      sandboxUrl = listeningUrl(sandbox.app);
      const sandboxApp = sandbox.app;
      stoppers.push(() => sandboxApp.close());
    }
    const processor =
      options.processor ??
      stripeProcessor({
        secretKey: config.stripeSecretKey,
        webhookSecret: config.stripeWebhookSecret,
        apiUrl: config.stripeApiUrl ?? sandboxUrl,
      });

    const app = createHttpApp(config);
    const services = buildServices(config, db, processor, app.log);
    await services.merchantAuth.start();
    stoppers.push(() => services.merchantAuth.stop());
    const redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          connectTimeout: 1000,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
        })
      : undefined;
    if (redis) {
      redis.on("error", () => {}); // reported through skipOnError; reconnects by itself
      stoppers.push(async () => void redis.disconnect());
    }
    await registerRoutes(app, services, adminToken, redis);
    await app.listen({ port: config.port, host: config.host });
    serviceUrl = listeningUrl(app);

    const workers: { stop(): Promise<void> }[] = [];
    if (options.workers !== false) {
      workers.push(startExpirySweeper(services.payments, config.expirySweepIntervalMs, app.log));
      const dispatcher = new WebhookDispatcher({
        db,
        outbox: services.outbox,
        config,
        log: app.log,
        metrics: services.metrics,
        resolver: options.webhookResolver,
      });
      await dispatcher.start();
      workers.push(dispatcher);
    }

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        for (const worker of workers) await worker.stop();
        await app.close();
        app.log.info("http server closed");
        for (const stop of stoppers.reverse()) await stop();
        await db.close();
        app.log.info("database closed");
      })();
      return closing;
    };
    return { app, services, url: serviceUrl, adminToken, sandbox, sandboxUrl, close };
  } catch (error) {
    for (const stop of stoppers.reverse()) await stop().catch(() => {});
    await db.close().catch(() => {});
    throw error;
  }
}
