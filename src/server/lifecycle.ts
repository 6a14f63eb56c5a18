// The service's life: open and migrate the database, build the services, start the sandbox and
// the processors, register the surfaces, listen, start the workers; and the stop, in reverse.

import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { type Config, MIN_ADMIN_TOKEN_LENGTH } from "../config/config.ts";
import { ConfigError } from "../config/values.ts";
import { AdminAuthenticator } from "../merchants/admin-token.ts";
import { receiptComposer } from "../pages/customer/receipt-mail.ts";
import { DisputeNotices } from "../payments/disputes/notices.ts";
import { startPaymentWorkers } from "../payments/module.ts";
import { RECEIPT_SEND_INTERVAL_MS, ReceiptSender } from "../payments/receipts/sender.ts";
import { type Clock, systemClock } from "../platform/clock.ts";
import { secretBoxFor, wrongKeyMessage } from "../platform/crypto/keys.ts";
import { SecretsKeyMismatchError } from "../platform/crypto/secret-box.ts";
import { type Database, DatabaseUnavailableError } from "../platform/db/database.ts";
import { migrate } from "../platform/db/migrate.ts";
import { openDatabase } from "../platform/db/open.ts";
import { startPeriodic } from "../platform/jobs/periodic.ts";
import { RedisLink } from "../platform/limits/redis-link.ts";
import { configuredMailer, type Mailer } from "../platform/mail/mailer.ts";
import { adminTokenFile } from "../platform/settings/admin-token-file.ts";
import { startPrivacyWorkers } from "../privacy/module.ts";
import type { ProcessorAdapter } from "../processor/port.ts";
import { ProcessorRegistry } from "../processor/registry.ts";
import type { Sandbox } from "../sandbox/app.ts";
import { type DisabledEndpoint, startEndpointHealth } from "../webhooks/endpoint-health.ts";
import { startWebhookWorkers } from "../webhooks/module.ts";
import type { Resolver } from "../webhooks/safe-connect.ts";
import { createHttpApp, isLocalUrl, listeningUrl } from "./http-app.ts";
import { namedInTraces } from "./processor-spans.ts";
import { createSandboxFor, makeProcessors, sandboxAccounts } from "./processors.ts";
import { registerSurfaces } from "./routes.ts";
import { buildServices, type Services } from "./services.ts";

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
  /** What "now" is for the domain and the workers (tests that move time); the system's otherwise. */
  clock?: Clock;
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

/** The one-line answer to a listen that failed, naming the variable that chose the port. */
function listenFailure(error: unknown, setting: string, host: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new ConfigError(`${setting} is already in use on ${host}: choose another`);
  if (code === "EADDRNOTAVAIL") return new ConfigError(`HOST=${host} is not an address of this machine`);
  return error;
}

/** Listens on `port`, naming the setting that chose it ("PORT=7200") when the port is taken. */
async function listenOn(app: FastifyInstance, setting: string, port: number, host: string): Promise<string> {
  try {
    await app.listen({ port, host });
  } catch (error) {
    throw listenFailure(error, setting, host);
  }
  return listeningUrl(app);
}

/**
 * Fails as `listenOn` would if PORT is taken. The sandbox listens first (the processors need its
 * address), so without this a busy PORT was reported as its neighbour SANDBOX_PORT being busy.
 */
async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenFailure(error, `PORT=${port}`, host);
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
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
      await checkPortFree(config.port, config.host);
      const setting =
        `SANDBOX_PORT=${config.sandboxPort}` +
        (config.sandboxPortSource === "PORT + 1" ? " (PORT + 1, as SANDBOX_PORT is not set)" : "");
      sandboxUrl = await listenOn(sandboxApp, setting, config.sandboxPort, config.sandboxHost);
      emulated = { url: sandboxUrl, accounts, serviceUrl: () => serviceUrl };
      if (!isLocalUrl(config.publicUrl)) {
        app.log.warn(
          { publicUrl: config.publicUrl },
          "THE SANDBOX PROCESSOR IS RUNNING while PUBLIC_URL is not local: no real money moves and any " +
            `payment can be completed by hand. Set PROCESSOR to ${config.catalog.map((p) => p.name).join(" or ")} ` +
            "for a real installation.",
        );
      }
    }
    const adapters = options.processors ?? (await makeProcessors(config, app.log, emulated));
    if (!config.sandbox) for (const adapter of adapters) checkCheckoutLifetime(config, adapter);
    const [first, ...others] = adapters;
    if (!first) throw new ConfigError("no processor is enabled");
    const registry = new ProcessorRegistry(namedInTraces(first), others.map(namedInTraces));
    const services = buildServices(config, db, box, registry, app.log, options.clock ?? systemClock, sandbox);
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
    await registerSurfaces(app, services, { admin, redis, isDraining: () => draining, sandbox });
    serviceUrl = await listenOn(app, `PORT=${config.port}`, config.port, config.host);

    const workers: { stop(): Promise<void> }[] = [];
    if (options.workers !== false && config.serviceRoles.includes("workers")) {
      workers.push(...startPaymentWorkers(services.payments, config, app.log));
      workers.push(...startPrivacyWorkers(services.privacy, db, config, app.log, services.clock));
      workers.push(
        ...(await startWebhookWorkers({
          outbox: services.outbox,
          db,
          config,
          log: app.log,
          metrics: services.metrics,
          box: services.box,
          resolver: options.webhookResolver,
        })),
      );
      const mailer = configuredMailer(config);
      workers.push(
        startEndpointHealth({
          db,
          disableAfterMs: config.webhookEndpointDisableAfterMs,
          log: app.log,
          onDisabled: (endpoint) => tellOfDisabledEndpoint(services, mailer, endpoint),
        }),
      );
      if (mailer) {
        const notices = new DisputeNotices({
          db,
          mailer,
          ownersOf: async (groupId) =>
            (await services.accounts.members.list(groupId))
              .filter((member) => !member.pending && member.role === "owner")
              .map((member) => member.email),
          publicUrl: config.publicUrl,
          clock: services.clock,
          log: app.log,
        });
        workers.push(
          startPeriodic("dispute e-mails", config.disputeNoticeIntervalMs, () => notices.sendDue(), app.log),
        );
      }
      if (mailer) {
        const receipts = new ReceiptSender(
          db,
          mailer,
          receiptComposer({
            paymentSubject: config.receiptSubject,
            refundSubject: config.refundReceiptSubject,
          }),
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

/** The group's owners and developers hear that an endpoint was disabled (with SMTP_URL). */
async function tellOfDisabledEndpoint(
  services: Services,
  mailer: Mailer | undefined,
  endpoint: DisabledEndpoint,
): Promise<void> {
  if (!mailer) return;
  const people = (await services.accounts.members.list(endpoint.group_id)).filter(
    (member) => !member.pending && (member.role === "owner" || member.role === "developer"),
  );
  for (const person of people) {
    await mailer.send({
      to: person.email,
      subject: "A webhook endpoint was disabled",
      text:
        `Every delivery to your webhook endpoint ${endpoint.url} has failed since ` +
        `${endpoint.failing_since.toISOString()}, so it was disabled. Events go on being recorded.\n\n` +
        `Enable it again on the dashboard's Developers page, or with PATCH /api/v1/webhook-endpoints/${endpoint.id} ` +
        `{"enabled": true}; then POST /api/v1/events/recover {"since": …, "endpointId": "${endpoint.id}"} sends the ` +
        "events it missed.\n",
    });
  }
}
