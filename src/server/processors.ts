// The processors an installation talks to, made in one place for `npm start`, the tests and
// `checkout sandbox`, from the catalog: the real ones from their settings, or those the built-in
// sandbox emulates, with its accounts.
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config/config.ts";
import { ConfigError } from "../config/values.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Queryable } from "../platform/db/database.ts";
import { installationSecret } from "../platform/settings/installation-secrets.ts";
import { sandboxObjectStore } from "../platform/settings/store.ts";
import type { ProcessorDescriptor, ProcessorSettings } from "../processor/descriptor.ts";
import type { ProcessorAdapter } from "../processor/port.ts";
import { createSandbox, type Sandbox } from "../sandbox/app.ts";
import type { SandboxProcessor } from "../sandbox/state.ts";

/**
 * What the sandbox's account of each emulated processor accepts and signs with, by processor:
 * its settings with the sandbox's own values where they are unset.
 */
export type SandboxAccounts = Readonly<Record<string, ProcessorSettings>>;

/** The processors the sandbox stands in for. */
const emulated = (config: Config): ProcessorDescriptor[] =>
  config.catalog.filter((processor) => processor.sandbox);

/**
 * The sandbox's keys, kept with the installation's data so every instance and every restart uses
 * the same, never well known; a processor's own settings win when set.
 */
export async function sandboxAccounts(
  config: Config,
  db: Queryable,
  box: SecretBox,
): Promise<SandboxAccounts> {
  const accounts: Record<string, ProcessorSettings> = {};
  for (const processor of emulated(config)) {
    const settings = { ...config.processorSettings[processor.name] };
    for (const value of processor.sandbox?.accounts ?? []) {
      if (settings[value.setting]) continue;
      settings[value.setting] = value.keptAs
        ? await installationSecret(db, box, value.keptAs, value.make)
        : value.make();
    }
    accounts[processor.name] = settings;
  }
  return accounts;
}

/** The service's intake of a processor's events, as the sandbox posts them. */
const intake = (serviceUrl: () => string | undefined, processor: string) => () => {
  const url = serviceUrl();
  return url && `${url}/processor/webhooks/${processor}`;
};

/** The built-in sandbox, emulating the enabled processors, with its objects kept in the database. */
export function createSandboxFor(
  config: Config,
  accounts: SandboxAccounts,
  db: Queryable,
  serviceUrl: () => string | undefined,
): Promise<Sandbox> {
  return createSandbox({
    emulators: emulated(config).map((processor) => ({
      name: processor.sandbox?.emulator as SandboxProcessor,
      settings: accounts[processor.name] ?? {},
      eventsUrl: intake(serviceUrl, processor.name),
    })),
    logLevel: config.logLevel,
    store: sandboxObjectStore(db),
  });
}

/**
 * The adapters PROCESSOR enables, in its order (the default route). In sandbox mode they talk to
 * the sandbox at `sandboxUrl`, with its accounts, and learn the URL the sandbox posts events to.
 */
export async function makeProcessors(
  config: Config,
  log: FastifyBaseLogger,
  sandbox?: { url: string; accounts: SandboxAccounts; serviceUrl: () => string | undefined },
  /** How long the start waits for a processor to accept its settings before going on without it. */
  startWaitMs = 5000,
): Promise<ProcessorAdapter[]> {
  const adapters: ProcessorAdapter[] = [];
  for (const name of config.processors) {
    const processor = config.catalog.find((known) => known.name === name);
    if (!processor) throw new ConfigError(`PROCESSOR names ${name}, which is not in the catalog`);
    const settings = sandbox?.accounts[name] ?? config.processorSettings[name] ?? {};
    const apiUrlSet = processor.apiUrlSetting && config.processorSettings[name]?.[processor.apiUrlSetting];
    const adapter = await processor.makeAdapter({
      settings,
      apiUrl: apiUrlSet || sandbox?.url,
      intakeUrl: sandbox ? intake(sandbox.serviceUrl, name) : () => undefined,
      warn: (message, reason) => log.warn({ processor: name, reason }, message),
    });
    if (adapter.start) await started(adapter.start(), processor, config, log, startWaitMs);
    adapters.push(adapter);
  }
  return adapters;
}

/**
 * A refusal of its settings stops the start; a processor that does not answer only delays its
 * use, and a refusal that comes after the start has gone on keeps it out of every route (it takes
 * nothing until it has started) instead of stopping a running service.
 */
async function started(
  start: Promise<void>,
  processor: ProcessorDescriptor,
  config: Config,
  log: FastifyBaseLogger,
  waitMs: number,
): Promise<void> {
  const early = await Promise.race([
    start.then(
      () => "ready" as const,
      (error: Error) => error,
    ),
    new Promise<"waiting">((resolve) => setTimeout(resolve, waitMs, "waiting").unref()),
  ]);
  if (early instanceof Error) {
    throw new ConfigError(`PROCESSOR=${config.processors.join(",")}: ${early.message}`);
  }
  if (early === "waiting") {
    start.catch((error: Error) =>
      log.error(
        { processor: processor.name, reason: error.message },
        `${processor.title} refused its settings: no payment is routed to ${processor.title}`,
      ),
    );
  }
}
