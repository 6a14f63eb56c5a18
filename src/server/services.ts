// The services the surfaces and workers share, built once per running service.
import type { FastifyBaseLogger } from "fastify";
import { type Accounts, createAccounts } from "../accounts/module.ts";
import { TwoFactorService } from "../accounts/two-factor.ts";
import type { Config } from "../config/config.ts";
import { MerchantAuthenticator } from "../merchants/auth.ts";
import { Branding } from "../merchants/branding/service.ts";
import { MerchantsService } from "../merchants/service.ts";
import { PaymentLinks } from "../payment-links/service.ts";
import type { RecordsElsewhere } from "../payments/core/records-elsewhere.ts";
import { createPayments, type Payments } from "../payments/module.ts";
import type { Clock } from "../platform/clock.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Database } from "../platform/db/database.ts";
import { partitionRunway } from "../platform/db/partitions.ts";
import { canMail, configuredMailer } from "../platform/mail/mailer.ts";
import { Metrics } from "../platform/metrics/metrics.ts";
import { createPrivacy, type Privacy } from "../privacy/module.ts";
import type { ProcessorRegistry } from "../processor/registry.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";
import { createWebhooks, type WebhookEvents } from "../webhooks/module.ts";
import type { WebhookOutbox } from "../webhooks/outbox.ts";
import type { WebhookSettings } from "../webhooks/settings.ts";
import { checkDatabase } from "./health/routes.ts";

/**
 * Everything the surfaces (merchant API, admin API, pages, public routes) and the workers share.
 * One of each per running service: a route or a worker is handed what it needs from here, and
 * nothing builds a service of its own.
 */
export interface Services {
  config: Config;
  db: Database;
  /** The processors of PROCESSOR, in default-route order. */
  processors: ProcessorRegistry;
  /** Wakes the webhook dispatcher when a transaction has written deliveries. */
  outbox: WebhookOutbox;
  metrics: Metrics;
  /** The payments core: creation, queries, refunds, processor events, expiry, reconciliation, routing. */
  payments: Payments;
  paymentLinks: PaymentLinks;
  /** Customer erasure, on request and by retention. */
  privacy: Privacy;
  branding: Branding;
  /** The event log, its deliveries, and their replays. */
  webhooks: WebhookEvents;
  /** A group's own webhook URL. */
  webhookSettings: WebhookSettings;
  /** A group's webhook endpoints. */
  webhookEndpoints: WebhookEndpoints;
  /** Groups, SafeSites, API keys and webhook secrets. */
  merchants: MerchantsService;
  /** API keys to their group, cached, with the failed-attempt budget. */
  merchantAuth: MerchantAuthenticator;
  /** Dashboard and console accounts: invites, passwords, sessions, roles. */
  accounts: Accounts;
  twoFactor: TwoFactorService;
  /** Seals secrets at rest (SECRETS_KEY). */
  box: SecretBox;
  /** What "now" is for the domain's decisions and the workers. */
  clock: Clock;
}

export function buildServices(
  config: Config,
  db: Database,
  box: SecretBox,
  processors: ProcessorRegistry,
  log: FastifyBaseLogger,
  clock: Clock,
  /** The built-in sandbox, whose records of a customer go with an erasure. */
  recordsElsewhere?: RecordsElsewhere,
): Services {
  const webhookModule = createWebhooks(db, config, box);
  const { outbox, log: eventLog, replays } = webhookModule;
  const merchantAuth = new MerchantAuthenticator(db, config.authFailuresPerMinute);
  const metrics = new Metrics(
    {
      queueDepth: () => eventLog.queueDepth(),
      oldestQueuedAt: () => eventLog.oldestUndelivered(),
      databaseAnswers: async () => (await checkDatabase(db, log)).ok,
      breakers: () =>
        Object.fromEntries(processors.defaultRoute.map((name) => [name, payments.breakers.status(name)])),
      replicaLagMs: () => db.replicaLagMs?.(),
      partitionRunwaySeconds: () => partitionRunway(db, new Date()),
    },
    config.databaseReadMaxLagMs,
  );
  const payments = createPayments({
    db,
    processors,
    outbox,
    config,
    log,
    onCreate: {
      passedOver: (from, to, reason) => metrics.processorFailovers.inc({ from, to, reason }),
      answered: (processor, outcome) => metrics.processorCreates.inc({ processor, outcome }),
    },
    recordsElsewhere,
    clock,
  });
  return {
    config,
    db,
    processors,
    outbox,
    metrics,
    payments,
    paymentLinks: new PaymentLinks(db, payments.safeSites, payments.creation, payments.queries),
    privacy: createPrivacy({
      db,
      digest: (email) => box.keyedDigest("customer-erasure", email),
      recordsElsewhere,
      log,
    }),
    webhooks: { log: eventLog, replays },
    webhookSettings: webhookModule.settings,
    webhookEndpoints: webhookModule.endpoints,
    branding: new Branding(db, config.publicUrl, canMail(config)),
    merchants: new MerchantsService(db, box, merchantAuth.forget, payments.safeSites.forget),
    merchantAuth,
    accounts: createAccounts({
      db,
      publicUrl: config.publicUrl,
      mailer: configuredMailer(config),
      log,
      operatorsRequire2fa: config.operatorsRequire2fa,
    }),
    twoFactor: new TwoFactorService(db, box, new URL(config.publicUrl).host),
    box,
    clock,
  };
}
