import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import checkoutRoutes from "./checkout/routes.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { openDatabase } from "./db/open.ts";
import { type AdminTokenState, resolveAdminToken } from "./http/admin-auth.ts";
import { buildApp } from "./http/app.ts";
import { MerchantAuthenticator } from "./http/merchant-auth.ts";
import { Metrics } from "./metrics/metrics.ts";
import { startExpirySweeper } from "./payments/expiry.ts";
import processorIntakeRoute from "./processor/intake.ts";
import type { Processor } from "./processor/processor.ts";
import { stripeProcessor } from "./processor/stripe-processor.ts";
import { createSandbox, type Sandbox } from "./sandbox/app.ts";
import { OutboxSignal, type Services } from "./services.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import type { Resolver } from "./webhooks/safe-connect.ts";

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

    const merchantAuth = new MerchantAuthenticator(db);
    await merchantAuth.start();
    stoppers.push(() => merchantAuth.stop());
    const services: Services = {
      config,
      db,
      processor,
      outbox: new OutboxSignal(),
      metrics: new Metrics(db),
      merchantAuth,
    };
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
    const app = await buildApp(services, {
      adminToken,
      redis,
      plugins: [(scope) => checkoutRoutes(scope, services), (scope) => processorIntakeRoute(scope, services)],
    });
    await app.listen({ port: config.port, host: config.host });
    serviceUrl = listeningUrl(app);

    const workers: { stop(): Promise<void> }[] = [];
    if (options.workers !== false) {
      workers.push(startExpirySweeper(services, app.log));
      const dispatcher = new WebhookDispatcher(services, app.log, services.metrics, {
        ...(options.webhookResolver && { resolver: options.webhookResolver }),
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
