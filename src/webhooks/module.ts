// The webhooks module assembled: the outbox the payments writer fills, the event log and its
// replays, a group's own URL, and the worker that sends.

import type { Config } from "../config/config.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Database } from "../platform/db/database.ts";
import type { Worker } from "../platform/jobs/periodic.ts";
import type { Metrics } from "../platform/metrics/metrics.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { EventLog } from "./event-log.ts";
import { WebhookOutbox } from "./outbox.ts";
import { Replays } from "./replays.ts";
import type { Resolver } from "./safe-connect.ts";
import { WebhookSettings } from "./settings.ts";

export interface Webhooks {
  /** Wakes the dispatchers when a transaction has written deliveries. */
  outbox: WebhookOutbox;
  /** What merchants and operators read: a payment's events and attempts, the feed, failed deliveries, the queue. */
  log: EventLog;
  /** What they send again: one event, or a window's failed ones. */
  replays: Replays;
  /** A group's own webhook URL. */
  settings: WebhookSettings;
  /** A group's endpoints, each with its events and secret. */
  endpoints: WebhookEndpoints;
}

/** What the routes and pages use of the module. */
export type WebhookEvents = Pick<Webhooks, "log" | "replays">;

export function createWebhooks(
  db: Database,
  config: Pick<Config, "allowedPrivateHosts">,
  box: SecretBox,
): Webhooks {
  const outbox = new WebhookOutbox();
  return {
    outbox,
    log: new EventLog(db),
    replays: new Replays(db, outbox),
    settings: new WebhookSettings(db, config.allowedPrivateHosts),
    endpoints: new WebhookEndpoints(db, box, outbox, config.allowedPrivateHosts),
  };
}

/** The dispatcher, started: it claims what is due at once. */
export async function startWebhookWorkers(options: {
  outbox: WebhookOutbox;
  db: Database;
  config: Config;
  log: Logger;
  metrics: Metrics;
  box: SecretBox;
  resolver?: Resolver | undefined;
}): Promise<Worker[]> {
  const { db, config, log } = options;
  const dispatcher = new WebhookDispatcher({
    db,
    outbox: options.outbox,
    config,
    log,
    metrics: options.metrics,
    resolver: options.resolver,
    box: options.box,
  });
  await dispatcher.start();
  return [dispatcher];
}
