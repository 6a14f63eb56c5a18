// The processors an installation talks to, made in one place for `npm start`, the tests and
// `checkout sandbox`: the real ones from their settings, or both emulated by the built-in sandbox.
import { randomBytes } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config/config.ts";
import { ConfigError } from "../config/values.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import type { Queryable } from "../platform/db/database.ts";
import { installationSecret } from "../platform/settings/installation-secrets.ts";
import { sandboxObjectStore } from "../platform/settings/store.ts";
import type { ProcessorAdapter } from "../processor/port.ts";
import { stripeAdapter } from "../processor/stripe/adapter.ts";
import { createSandbox, type Sandbox } from "../sandbox/app.ts";

/** What the sandbox's two accounts accept and sign with: made per installation, never well known. */
export interface SandboxAccounts {
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  squareAccessToken: string;
  squareSignatureKey: string;
  squareLocationId: string;
}

const randomToken = (bytes: number) => randomBytes(bytes).toString("base64url");

/**
 * The sandbox's keys, kept with the installation's data so every instance and every restart uses
 * the same; the processors' own variables win when set (STRIPE_SECRET_KEY, SQUARE_ACCESS_TOKEN, …).
 */
export async function sandboxAccounts(
  config: Config,
  db: Queryable,
  box: SecretBox,
): Promise<SandboxAccounts> {
  const secret = (name: string, make: () => string) => installationSecret(db, box, name, make);
  return {
    stripeSecretKey:
      config.stripeSecretKey ?? (await secret("sandbox_api_key", () => `sk_test_${randomToken(18)}`)),
    stripeWebhookSecret:
      config.stripeWebhookSecret ??
      (await secret("sandbox_webhook_secret", () => `whsec_${randomBytes(32).toString("base64")}`)),
    squareAccessToken:
      config.square.accessToken ??
      (await secret("sandbox_square_access_token", () => `EAAAsandbox${randomToken(24)}`)),
    squareSignatureKey:
      config.square.webhookSignatureKey ??
      (await secret("sandbox_square_signature_key", () => randomToken(24))),
    squareLocationId: config.square.locationId ?? "LSANDBOX",
  };
}

/** The service's processor intake of each processor, as the sandbox posts events to it. */
const intake = (serviceUrl: () => string | undefined, processor: string) => () => {
  const url = serviceUrl();
  return url && `${url}/processor/webhooks/${processor}`;
};

/** The built-in sandbox, emulating both processors, with its objects kept in the database. */
export function createSandboxFor(
  config: Config,
  accounts: SandboxAccounts,
  db: Queryable,
  serviceUrl: () => string | undefined,
): Promise<Sandbox> {
  return createSandbox({
    stripe: {
      apiKey: accounts.stripeSecretKey,
      webhookSecret: accounts.stripeWebhookSecret,
      eventsUrl: intake(serviceUrl, "stripe"),
    },
    square: {
      accessToken: accounts.squareAccessToken,
      locationId: accounts.squareLocationId,
      signatureKey: accounts.squareSignatureKey,
      eventsUrl: intake(serviceUrl, "square"),
    },
    logLevel: config.logLevel,
    store: sandboxObjectStore(db),
  });
}

/**
 * The adapters PROCESSOR enables, in its order (the default route). In sandbox mode they talk to
 * the sandbox at `sandboxUrl`, with its accounts, and Square's events are signed for the URL the
 * sandbox posts them to.
 */
export async function makeProcessors(
  config: Config,
  log: FastifyBaseLogger,
  sandbox?: { url: string; accounts: SandboxAccounts; serviceUrl: () => string | undefined },
  /** How long the start waits for Square to accept its settings before going on without it. */
  squareStartWaitMs = 5000,
): Promise<ProcessorAdapter[]> {
  const adapters: ProcessorAdapter[] = [];
  for (const name of config.processors) {
    if (name === "stripe") {
      adapters.push(
        stripeAdapter({
          secretKey: sandbox?.accounts.stripeSecretKey ?? config.stripeSecretKey ?? "",
          webhookSecret: sandbox?.accounts.stripeWebhookSecret ?? config.stripeWebhookSecret ?? "",
          apiUrl: config.stripeApiUrl ?? sandbox?.url,
        }),
      );
      continue;
    }
    // Loaded only where Square is used: its SDK is a large module graph (50 MB of a process).
    const { squareAdapter } = await import("../processor/square/adapter.ts");
    const square = squareAdapter({
      accessToken: sandbox?.accounts.squareAccessToken ?? config.square.accessToken ?? "",
      locationId: sandbox?.accounts.squareLocationId ?? config.square.locationId ?? "",
      webhookSignatureKey: sandbox?.accounts.squareSignatureKey ?? config.square.webhookSignatureKey ?? "",
      webhookUrl: sandbox
        ? () => intake(sandbox.serviceUrl, "square")() ?? config.square.webhookUrl
        : () => config.square.webhookUrl,
      apiUrl: config.square.apiUrl ?? sandbox?.url,
      onLocationError: (error) =>
        log.warn({ reason: error.message }, "could not read the Square location's currency: asking again"),
    });
    // A wrong token or location stops the start; an unreachable Square only delays its use, and a
    // refusal that comes after the start has gone on keeps Square out of every route (it takes no
    // currency until its location's is known) instead of stopping a running service.
    const early = await Promise.race([
      square.ready.then(
        () => "ready" as const,
        (error: Error) => error,
      ),
      new Promise<"waiting">((resolve) => setTimeout(resolve, squareStartWaitMs, "waiting").unref()),
    ]);
    if (early instanceof Error) {
      throw new ConfigError(`PROCESSOR=${config.processors.join(",")}: ${early.message}`);
    }
    if (early === "waiting") {
      square.ready.catch((error: Error) =>
        log.error({ reason: error.message }, "Square refused its settings: no payment is routed to Square"),
      );
    }
    adapters.push(square);
  }
  return adapters;
}
