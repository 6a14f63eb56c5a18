// The composition root: builds every service once and registers each module as a Fastify plugin.
// Nothing else wires modules together.
import { randomBytes, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { accountPages } from "./account-pages/pages.ts";
import accountAdminRoutes from "./accounts/routes/admin.ts";
import { AccountsService } from "./accounts/service.ts";
import { TwoFactorService } from "./accounts/two-factor.ts";
import brandingRoutes from "./branding/routes/api.ts";
import logoRoute from "./branding/routes/logo.ts";
import { Branding } from "./branding/service.ts";
import checkoutRoutes from "./checkout/routes.ts";
import { type Config, ConfigError, MIN_ADMIN_TOKEN_LENGTH } from "./config.ts";
import groupPages from "./console/groups.ts";
import operationsPages from "./console/operations.ts";
import { secretBoxFor, wrongKeyMessage } from "./crypto/keys.ts";
import { type SecretBox, SecretsKeyMismatchError } from "./crypto/secret-box.ts";
import { hashSecret } from "./crypto/secret-hash.ts";
import brandingPages from "./dashboard/branding.ts";
import developerPages from "./dashboard/developers.ts";
import overviewPage from "./dashboard/overview.ts";
import paymentDetailPages from "./dashboard/payment-detail.ts";
import paymentLinkPages from "./dashboard/payment-links.ts";
import paymentListPages from "./dashboard/payments.ts";
import userPages from "./dashboard/users.ts";
import { type Database, DatabaseUnavailableError } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { openDatabase } from "./db/open.ts";
import healthRoutes from "./health/routes.ts";
import { rejectUnstorableBody } from "./http/body-guard.ts";
import { answerFrameworkError, installErrorEnvelope } from "./http/error-handler.ts";
import { ApiError, errorResponseSchema } from "./http/errors.ts";
import { sendPage } from "./http/html.ts";
import { loggerOptions } from "./http/logger.ts";
import { resilientStore } from "./http/rate-limit-store.ts";
import { startPeriodic } from "./jobs/periodic.ts";
import { RedisLink } from "./limits/redis-link.ts";
import { smtpMailer } from "./mail/mailer.ts";
import { AdminAuthenticator } from "./merchants/admin-token.ts";
import { MerchantAuthenticator } from "./merchants/auth.ts";
import authTestRoute from "./merchants/routes/auth-test.ts";
import groupRoutes from "./merchants/routes/groups.ts";
import keyRoutes from "./merchants/routes/keys.ts";
import safeSiteRoutes from "./merchants/routes/safe-sites.ts";
import { MerchantsService } from "./merchants/service.ts";
import { Metrics } from "./metrics/metrics.ts";
import metricsRoutes from "./metrics/routes.ts";
import { finishOpenApiDocument, SWAGGER_UI_STYLE_HASH } from "./openapi/document.ts";
import paymentLinkRoutes from "./payment-links/routes/api.ts";
import paymentLinkPage from "./payment-links/routes/page.ts";
import { PaymentLinks } from "./payment-links/service.ts";
import { createPayments, type Payments, startPaymentWorkers } from "./payments/module.ts";
import cancelPaymentRoute from "./payments/routes/cancel.ts";
import createPaymentRoute from "./payments/routes/create.ts";
import paymentEventRoutes from "./payments/routes/events.ts";
import getPaymentRoute from "./payments/routes/get.ts";
import listPaymentsRoute from "./payments/routes/list.ts";
import processorWebhookRoute from "./payments/routes/processor-webhooks.ts";
import reconciliationRoutes from "./payments/routes/reconciliation.ts";
import refundRoutes from "./payments/routes/refunds.ts";
import routingRoutes from "./payments/routes/routing.ts";
import triggerRoute, { type SandboxSimulator } from "./payments/routes/trigger.ts";
import type { ProcessorAdapter } from "./processor/port.ts";
import { ProcessorRegistry } from "./processor/registry.ts";
import { createSandboxFor, makeProcessors, sandboxAccounts } from "./processors.ts";
import { RECEIPT_SEND_INTERVAL_MS, ReceiptSender } from "./receipts/sender.ts";
import type { Sandbox } from "./sandbox/app.ts";
import type { ProcessorSimulation } from "./sandbox/simulation.ts";
import { adminTokenFile } from "./settings/admin-token-file.ts";
import { installationSecret } from "./settings/installation-secrets.ts";
import { assetRoutes, installPageSupport, requireSignIn } from "./web/plugin.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { WebhookOutbox } from "./webhooks/outbox.ts";
import { startAttemptRetention } from "./webhooks/retention.ts";
import failedDeliveriesRoute from "./webhooks/routes/failed-deliveries.ts";
import eventFeedRoute from "./webhooks/routes/feed.ts";
import webhookSettingsRoutes from "./webhooks/routes/settings.ts";
import eventStreamRoute from "./webhooks/routes/stream.ts";
import type { Resolver } from "./webhooks/safe-connect.ts";
import { WebhookService } from "./webhooks/service.ts";
import { WebhookSettings } from "./webhooks/settings.ts";

/** Everything the interfaces and workers share; built once per running service. */
export interface Services {
  config: Config;
  db: Database;
  processors: ProcessorRegistry;
  outbox: WebhookOutbox;
  metrics: Metrics;
  payments: Payments;
  paymentLinks: PaymentLinks;
  branding: Branding;
  webhooks: WebhookService;
  webhookSettings: WebhookSettings;
  merchants: MerchantsService;
  merchantAuth: MerchantAuthenticator;
  accounts: AccountsService;
  twoFactor: TwoFactorService;
  /** Seals secrets at rest (SECRETS_KEY). */
  box: SecretBox;
}

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  url: string;
  adminAuth: AdminAuthenticator;
  sandbox?: Sandbox | undefined;
  sandboxUrl?: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  /** An already-open database (tests); otherwise opened from the config. */
  db?: Database;
  /**
   * The database as opened from the config by whoever started this (main.ts, before loading the
   * service's modules): the first attempt to open it, with the same logs and retries as one made
   * here.
   */
  opening?: Promise<Database>;
  /** Replaces the processors PROCESSOR names, in route order (tests of processor failures). */
  processors?: ProcessorAdapter[];
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
    // Behind a TLS-terminating proxy: the client's address and https come from its headers.
    trustProxy:
      typeof config.trustProxy === "number"
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    frameworkErrors: answerFrameworkError,
    // Mistyped input is an error, never silently converted ("100" is not an amount).
    ajv: { customOptions: { coerceTypes: false, allErrors: false, allowUnionTypes: true } },
  });
}

function buildServices(
  config: Config,
  db: Database,
  box: SecretBox,
  processors: ProcessorRegistry,
  log: FastifyBaseLogger,
): Services {
  const outbox = new WebhookOutbox();
  const webhooks = new WebhookService(db, outbox);
  const merchantAuth = new MerchantAuthenticator(db, config.authFailuresPerMinute);
  const metrics = new Metrics(() => webhooks.queueDepth());
  const payments = createPayments({
    db,
    processors,
    outbox,
    config,
    log,
    onFailover: (from, to, reason) => metrics.processorFailovers.inc({ from, to, reason }),
  });
  return {
    config,
    db,
    processors,
    outbox,
    metrics,
    payments,
    paymentLinks: new PaymentLinks(db, payments.safeSites, payments.creation, payments.queries),
    webhooks,
    webhookSettings: new WebhookSettings(db, config.allowedPrivateHosts),
    branding: new Branding(db, config.publicUrl, config.smtpUrl !== undefined),
    merchants: new MerchantsService(db, box, merchantAuth.forget, payments.safeSites.forget),
    merchantAuth,
    accounts: new AccountsService(
      db,
      config.publicUrl,
      config.smtpUrl ? smtpMailer(config.smtpUrl, config.smtpFrom) : undefined,
      log,
      config.operatorsRequire2fa,
    ),
    twoFactor: new TwoFactorService(db, box, new URL(config.publicUrl).host),
    box,
  };
}

/** Every route of the service, each module a plugin, under the hooks its callers need. */
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

async function registerRoutes(
  app: FastifyInstance,
  services: Services,
  admin: AdminAuthenticator,
  {
    redis,
    isDraining,
    sandbox,
  }: { redis: RedisLink | undefined; isDraining: () => boolean; sandbox: Sandbox | undefined },
): Promise<void> {
  const { config, metrics, payments, webhooks, merchants, merchantAuth, accounts } = services;
  installErrorEnvelope(app);
  app.addSchema(errorResponseSchema);
  app.addHook("preValidation", rejectUnstorableBody);
  // Hooks that wait for nothing take a callback: an async hook costs every request a promise.
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unknown",
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", "nosniff");
    done(null, payload);
  });
  await app.register(metricsRoutes, {
    metrics,
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
  // A workers-only instance answers its probes and metrics, nothing else.
  if (!config.serviceRoles.includes("api")) return;

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

  // The merchant API: API keys, JSON bodies, a rate limit per key.
  await app.register(async (api) => {
    api.addHook("onRequest", async (request, reply) => {
      request.merchant = await merchantAuth.authenticate(request);
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
      // Shared through Redis when there is one; counted here while it is unreachable.
      ...(redis && { store: resilientStore(redis, "checkout-rate-limit:") }),
      skipOnError: true,
      errorResponseBuilder: (_request, context) =>
        new ApiError("RATE_LIMIT_EXCEEDED", `Rate limit exceeded; retry in ${context.after}`),
    });
    await api.register(authTestRoute, { merchants });
    await api.register(createPaymentRoute, { creation: payments.creation });
    await api.register(getPaymentRoute, { queries: payments.queries });
    await api.register(listPaymentsRoute, { queries: payments.queries });
    await api.register(cancelPaymentRoute, { creation: payments.creation });
    await api.register(paymentEventRoutes, { queries: payments.queries, webhooks });
    await api.register(refundRoutes, { refunds: payments.refunds });
    await api.register(paymentLinkRoutes, { links: services.paymentLinks });
    await api.register(webhookSettingsRoutes, { settings: services.webhookSettings });
    await api.register(brandingRoutes, { branding: services.branding });
    await api.register(eventFeedRoute, { webhooks });
    await api.register(eventStreamRoute, { db: services.db, keys: merchantAuth });
    if (sandbox) {
      await api.register(triggerRoute, {
        creation: payments.creation,
        queries: payments.queries,
        expiry: payments.expiry,
        simulator: sandboxSimulator(sandbox),
        publicUrl: config.publicUrl,
      });
    }
  });

  // The admin API: the operator's bearer token.
  await app.register(async (adminScope) => {
    adminScope.addHook("onRequest", admin.authenticate);
    await adminScope.register(groupRoutes, { merchants, publicUrl: config.publicUrl });
    await adminScope.register(safeSiteRoutes, { merchants });
    await adminScope.register(keyRoutes, { merchants });
    await adminScope.register(reconciliationRoutes, {
      reconciliation: payments.reconciliation,
      refunds: payments.refunds,
    });
    await adminScope.register(failedDeliveriesRoute, { webhooks });
    await adminScope.register(routingRoutes, { routing: payments.routing });
    await adminScope.register(accountAdminRoutes, { accounts });
  });

  // The merchant dashboard and the operator console: pages on PUBLIC_URL's host, signed-in sessions.
  assetRoutes(app);
  // Signs page-session cookies.
  const sessionSecret = await installationSecret(services.db, services.box, "page_session_secret", () =>
    randomToken(32),
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
    await web.register(accountPages, { accounts, twoFactor: services.twoFactor, kind: "merchant" });
    await web.register(accountPages, { accounts, twoFactor: services.twoFactor, kind: "operator" });
    await web.register(async (dashboard) => {
      dashboard.addHook("preValidation", requireSignIn(accounts, "merchant"));
      // Actions that make the service send webhooks are limited per group, as on the API.
      await dashboard.register(rateLimit, {
        global: false,
        hook: "preHandler",
        keyGenerator: (request) => request.principal?.groupId ?? request.ip,
        ...(redis && { store: resilientStore(redis, "checkout-page-rate-limit:") }),
        skipOnError: true,
        errorResponseBuilder: (_request, context) =>
          new ApiError("RATE_LIMIT_EXCEEDED", `Too many requests; retry in ${context.after}`),
      });
      await dashboard.register(overviewPage, { queries: payments.queries });
      await dashboard.register(paymentListPages, { queries: payments.queries });
      await dashboard.register(paymentDetailPages, { payments, webhooks });
      await dashboard.register(developerPages, {
        merchants,
        webhooks,
        webhookSettings: services.webhookSettings,
        accounts,
      });
      await dashboard.register(paymentLinkPages, { links: services.paymentLinks });
      await dashboard.register(brandingPages, {
        branding: services.branding,
        canMail: config.smtpUrl !== undefined,
      });
      await dashboard.register(userPages, { accounts, twoFactor: services.twoFactor });
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

  // The service's own address names where to go, instead of a JSON 404.
  app.get("/", { schema: { hide: true } }, async (_request, reply) =>
    sendPage(
      reply,
      200,
      "Checkout service",
      `<h1>Checkout service</h1><ul>
<li><a href="/dashboard">Merchant dashboard</a></li>
<li><a href="/operator">Operator console</a></li>
<li><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI</a>)</li>
<li><a href="/health">Health</a></li></ul>`,
    ),
  );
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
      ...(redis && { store: resilientStore(redis, "checkout-link-rate-limit:") }),
      skipOnError: true,
    },
  });
  await app.register(processorWebhookRoute, {
    processors: services.processors,
    processorEvents: payments.processorEvents,
  });
}

/** CHECKOUT_TTL_SECONDS must fit the processor's bounds (the sandbox takes any, for fast tests). */
function checkCheckoutLifetime(config: Config, processor: ProcessorAdapter): void {
  const { min, max } = processor.limits.checkoutLifetimeSeconds;
  if (config.checkoutTtlSeconds < min || config.checkoutTtlSeconds > max) {
    throw new ConfigError(
      `CHECKOUT_TTL_SECONDS="${config.checkoutTtlSeconds}" is not valid: expected ${min} to ${max} with ` +
        `PROCESSOR=${processor.name} (${processor.name}'s limits for a checkout)`,
    );
  }
}

const isLocalUrl = (url: string) => /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(new URL(url).hostname);

const randomToken = (bytes: number) => randomBytes(bytes).toString("base64url");

/** Listens on `port`, naming the variable that chose it when the port is taken. */
async function listenOn(app: FastifyInstance, variable: string, port: number, host: string): Promise<string> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new ConfigError(`${variable}=${port} is already in use on ${host}: choose another`);
    if (code === "EADDRNOTAVAIL") throw new ConfigError(`HOST=${host} is not an address of this machine`);
    throw error;
  }
  return listeningUrl(app);
}

/** Opens the database and migrates it, retrying while PostgreSQL is not reachable yet. */
async function openAndMigrate(
  config: Config,
  log: FastifyBaseLogger,
  given?: Database,
  opening?: Promise<Database>,
): Promise<Database> {
  const deadline = Date.now() + config.databaseConnectTimeoutSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    if (!given) {
      log.info(
        config.databaseUrl
          ? "connecting to PostgreSQL"
          : `opening the embedded database in ${config.dataDir} (first start takes a few seconds)`,
      );
    }
    const db = given ?? (await (attempt === 1 && opening ? opening : openDatabase(config)));
    try {
      const applied = await migrate(db);
      for (const name of applied) log.info({ migration: name }, `applied migration ${name}`);
      log.info(
        { database: db.kind, ms: Math.round(performance.now() - started) },
        applied.length > 0 ? "database ready" : "database ready; migrations up to date",
      );
      return db;
    } catch (error) {
      if (given) throw error;
      await db.close().catch(() => {});
      const waitMs = Math.min(1000 * 2 ** (attempt - 1), 10_000);
      if (!(error instanceof DatabaseUnavailableError) || Date.now() + waitMs > deadline) throw error;
      log.warn(
        { attempt, retryInMs: waitMs, reason: error.message },
        `PostgreSQL is not reachable yet (attempt ${attempt}); retrying in ${waitMs / 1000} s`,
      );
      await sleep(waitMs);
    }
  }
}

/** Starts the whole service: database, migrations, sandbox processor, HTTP, workers. */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const app = createHttpApp(config);
  const db = await openAndMigrate(config, app.log, options.db, options.opening);
  const stoppers: (() => Promise<void>)[] = [];
  let keyFileMadeNow: string | undefined;
  try {
    const admin = new AdminAuthenticator(
      db,
      config.adminToken,
      config.authFailuresPerMinute,
      adminTokenFile(config.dataDir),
    );
    if (config.adminToken !== undefined && config.adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
      app.log.warn(
        `ADMIN_TOKEN is shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters: anyone who guesses it controls every group. ` +
          "Leave it unset to have a strong one generated (a real PROCESSOR refuses to start with it).",
      );
    }
    await admin.start();
    stoppers.push(() => admin.stop());

    let serviceUrl: string | undefined;
    let sandbox: Sandbox | undefined;
    let sandboxUrl: string | undefined;
    const { box, madeKeyFile } = secretBoxFor(config);
    keyFileMadeNow = madeKeyFile;
    let emulated: Parameters<typeof makeProcessors>[2];
    if (config.sandbox && !options.processors) {
      const accounts = await sandboxAccounts(config, db, box);
      sandbox = await createSandboxFor(config, accounts, db, () => serviceUrl);
      const sandboxApp = sandbox.app;
      stoppers.push(() => sandboxApp.close());
      sandboxUrl = await listenOn(sandboxApp, "SANDBOX_PORT", config.sandboxPort, config.sandboxHost);
      emulated = { url: sandboxUrl, accounts, serviceUrl: () => serviceUrl };
      if (!isLocalUrl(config.publicUrl)) {
        app.log.warn(
          { publicUrl: config.publicUrl },
          "THE SANDBOX PROCESSOR IS RUNNING while PUBLIC_URL is not local: no real money moves and any " +
            "payment can be completed by hand. Set PROCESSOR=stripe (or square) for a real installation.",
        );
      }
    }
    const adapters = options.processors ?? (await makeProcessors(config, app.log, emulated));
    if (!config.sandbox) for (const adapter of adapters) checkCheckoutLifetime(config, adapter);
    const [first, ...others] = adapters;
    if (!first) throw new ConfigError("no processor is enabled");
    const services = buildServices(config, db, box, new ProcessorRegistry(first, others), app.log);
    // Secrets from before sealing, or sealed under a key SECRETS_KEY no longer lists first.
    const resealed =
      (await services.merchants.resealWebhookSecrets()) + (await services.twoFactor.resealSecrets());
    if (resealed > 0) app.log.info({ resealed }, "secrets sealed again with the current SECRETS_KEY");
    const salted = await services.twoFactor.saltRecoveryCodes();
    if (salted > 0) app.log.info({ accounts: salted }, "recovery codes stored before salting hashed again");
    await services.merchantAuth.start();
    stoppers.push(() => services.merchantAuth.stop());
    await services.payments.safeSites.start();
    stoppers.push(() => services.payments.safeSites.stop());
    await services.payments.routing.cache.start();
    stoppers.push(() => services.payments.routing.cache.stop());
    let redis: RedisLink | undefined;
    if (config.redisUrl) {
      // Loaded only when configured: a start without Redis does not pay for the client.
      const { Redis } = await import("ioredis");
      const connection = new Redis(config.redisUrl, {
        connectTimeout: 1000,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
      });
      redis = new RedisLink(connection, app.log);
      stoppers.push(async () => void connection.disconnect());
    }
    let draining = false;
    await registerRoutes(app, services, admin, { redis, isDraining: () => draining, sandbox });
    serviceUrl = await listenOn(app, "PORT", config.port, config.host);

    const workers: { stop(): Promise<void> }[] = [];
    if (options.workers !== false && config.serviceRoles.includes("workers")) {
      workers.push(...startPaymentWorkers(services.payments, config, app.log));
      const dispatcher = new WebhookDispatcher({
        db,
        outbox: services.outbox,
        config,
        log: app.log,
        metrics: services.metrics,
        resolver: options.webhookResolver,
        box: services.box,
      });
      await dispatcher.start();
      workers.push(dispatcher);
      const retention = startAttemptRetention(db, config.webhookAttemptRetentionDays, app.log);
      if (retention) workers.push(retention);
      if (config.smtpUrl) {
        const receipts = new ReceiptSender(
          db,
          smtpMailer(config.smtpUrl, config.smtpFrom),
          {
            paymentSubject: config.receiptSubject,
            refundSubject: config.refundReceiptSubject,
          },
          app.log,
        );
        workers.push(startPeriodic("receipts", RECEIPT_SEND_INTERVAL_MS, () => receipts.sendDue(), app.log));
      }
    }

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        // Readiness fails at once so the load balancer stops sending; connections already routed
        // here are still served during the grace period, then the listener closes.
        draining = true;
        if (config.shutdownGraceMs > 0) {
          app.log.info({ graceMs: config.shutdownGraceMs }, "draining: readiness now fails");
          await sleep(config.shutdownGraceMs);
        }
        for (const worker of workers) await worker.stop();
        await app.close();
        app.log.info("http server closed");
        for (const stop of stoppers.reverse()) await stop();
        await db.close();
        app.log.info("database closed");
      })();
      return closing;
    };
    return { app, services, url: serviceUrl, adminAuth: admin, sandbox, sandboxUrl, close };
  } catch (error) {
    await app.close().catch(() => {});
    for (const stop of stoppers.reverse()) await stop().catch(() => {});
    await db.close().catch(() => {});
    if (error instanceof SecretsKeyMismatchError) {
      // A key file this start made is of no use to this database: the right one goes back there.
      if (keyFileMadeNow) rmSync(keyFileMadeNow, { force: true });
      throw new ConfigError(wrongKeyMessage(error.keyId, !config.secretsKeys));
    }
    throw error;
  }
}
