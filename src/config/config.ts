import packageJson from "../../package.json" with { type: "json" };
import type { DatabaseSettings } from "../platform/db/open.ts";
import { PROCESSOR_CATALOG } from "../processor/catalog.ts";
import type { ProcessorDescriptor, ProcessorSettings } from "../processor/descriptor.ts";
import {
  bad,
  ConfigError,
  databaseUrl,
  type Env,
  httpUrl,
  integer,
  oneOf,
  parseSecretsKeys,
  redisUrl,
  retryDelays,
  seconds,
  smtpUrl,
  trustProxy,
} from "./values.ts";

export interface Config extends DatabaseSettings {
  version: string;
  port: number;
  host: string;
  publicUrl: string;
  /** Where a customer goes when a merchant's URL is unusable; unset: the payment's /done page. */
  fallbackUrl: string | undefined;
  databaseConnectTimeoutSeconds: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  metricsToken: string | undefined;
  /** PROCESSOR=sandbox: every processor the sandbox emulates, emulated by the built-in sandbox. */
  sandbox: boolean;
  /** The processors the service knows (PROCESSOR_CATALOG unless a test adds its own). */
  catalog: readonly ProcessorDescriptor[];
  /** The enabled processors in PROCESSOR's order: the installation's default route. */
  processors: readonly string[];
  /**
   * Each catalog processor's settings by variable name; in sandbox mode what is unset is the
   * sandbox's own account, made per installation.
   */
  processorSettings: Readonly<Record<string, ProcessorSettings>>;
  sandboxPort: number;
  /** How SANDBOX_PORT's value was chosen, for messages: the variable, or PORT's neighbour. */
  sandboxPortSource: "SANDBOX_PORT" | "PORT + 1";
  sandboxHost: string;
  /** The longest one processor is given to answer a create before the next is tried. */
  processorCreateTimeoutMs: number;
  /** Unknown outcomes in a row that open a processor's breaker, and how long it stays open. */
  processorBreakerFailures: number;
  processorBreakerMs: number;
  /** How often abandoned checkout attempts are looked for and closed at their processor. */
  abandonedCheckoutSweepMs: number;
  checkoutTtlSeconds: number;
  idempotencyLeaseSeconds: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  /** An endpoint whose every delivery failed for this long, with no success in between, is disabled. */
  webhookEndpointDisableAfterMs: number;
  allowedPrivateHosts: string[];
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  authFailuresPerMinute: number;
  expirySweepIntervalMs: number;
  /** A processor that did not answer about an overdue payment is asked again after this. */
  expiryRetryMs: number;
  /** The longest a refund request waits for the processor before answering `pending`. */
  refundDeadlineMs: number;
  refundSettleIntervalMs: number;
  /** How often the owners' dispute e-mails (opened, 72 hours before the deadline) are looked for. */
  disputeNoticeIntervalMs: number;
  /** Webhook attempt logs older than this many days are deleted; 0 keeps them forever. */
  webhookAttemptRetentionDays: number;
  /** Payments final for longer than this many days lose their customer (erased); 0 keeps them. */
  piiRetentionDays: number;
  /** Webhook events (with their deliveries and attempts) and processor events; 0 keeps them. */
  eventRetentionDays: number;
  /** Audit entries; 0 keeps them. */
  auditRetentionDays: number;
  /** 0 turns the scheduled reconciliation run off. */
  reconcileIntervalHours: number;
  shutdownGraceMs: number;
  logLevel: string;
  /**
   * SECRETS_KEY: the keys that seal secrets at rest, newest first (base64 of 32 bytes each,
   * comma-separated). Unset in the sandbox: one is made in DATA_DIR. Required with a real processor.
   */
  secretsKeys: Buffer[] | undefined;
  /** Operators must sign in with a second factor (OPERATORS_REQUIRE_2FA=true). */
  operatorsRequire2fa: boolean;
  /** SMTP server for invites and password resets (smtp:// or smtps://); unset: links are only shown. */
  smtpUrl: string | undefined;
  /** Development only (sandbox mode): every e-mail kept as an .eml file here instead of sent. */
  mailDir: string | undefined;
  smtpFrom: string;
  /** E-mail receipts' subjects, {merchant} standing for the merchant's display name. */
  receiptSubject: string;
  refundReceiptSubject: string;
  /** Fastify's trustProxy: whose X-Forwarded-For/-Proto to believe (client address, https). */
  trustProxy: boolean | number | string;
  /** What this instance runs: `api` serves HTTP, `workers` the dispatcher, sweepers and scheduled runs. */
  serviceRoles: readonly ServiceRole[];
}

export const SERVICE_ROLES = ["api", "workers"] as const;

export type ServiceRole = (typeof SERVICE_ROLES)[number];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** Shorter admin tokens are refused with a real PROCESSOR and warned about in the sandbox. */
export const MIN_ADMIN_TOKEN_LENGTH = 24;

/**
 * PROCESSOR: `sandbox` (every processor the sandbox emulates, in the catalog's order), or a list of
 * the catalog's processors whose order is the default route.
 */
function processorList(
  env: Env,
  catalog: readonly ProcessorDescriptor[],
): { sandbox: boolean; processors: string[]; named: string } {
  const named = (env.PROCESSOR || "sandbox").replace(/\s+/g, "");
  if (named === "sandbox") {
    return { sandbox: true, processors: catalog.filter((p) => p.sandbox).map((p) => p.name), named };
  }
  const known = catalog.map((processor) => processor.name);
  const names = named.split(",");
  if (names.some((name) => !known.includes(name)) || new Set(names).size !== names.length) {
    throw bad("PROCESSOR", named, `sandbox, or a list of ${known.join(", ")}, e.g. "${known.join(",")}"`);
  }
  return { sandbox: false, processors: names, named };
}

/** Each processor's settings; a real processor's required ones must be set, URLs must be URLs. */
function processorSettings(
  env: Env,
  catalog: readonly ProcessorDescriptor[],
  enabled: { live: boolean; processors: readonly string[]; named: string },
  publicUrl: string,
): Record<string, ProcessorSettings> {
  const settings: Record<string, ProcessorSettings> = {};
  for (const processor of catalog) {
    if (enabled.live && enabled.processors.includes(processor.name)) {
      const missing = processor.settings.find((setting) => setting.required && !env[setting.name]);
      if (missing) throw new ConfigError(`PROCESSOR=${enabled.named} needs ${missing.name}`);
    }
    settings[processor.name] = Object.fromEntries(
      processor.settings.map((setting) => {
        const value = env[setting.name] || setting.defaultFrom?.(publicUrl) || undefined;
        return [setting.name, value && setting.url ? httpUrl(setting.name, value) : value];
      }),
    );
  }
  return settings;
}

/**
 * MAIL_DIR keeps customers' e-mails on disk for someone trying the service: never with real
 * money, and never beside a real SMTP server that would make it look delivered.
 */
function mailDir(env: Env, sandbox: boolean): string | undefined {
  const dir = env.MAIL_DIR;
  if (!dir) return undefined;
  if (!sandbox)
    throw new ConfigError(
      "MAIL_DIR is for trying the service in sandbox mode: with a real PROCESSOR set SMTP_URL",
    );
  if (env.SMTP_URL) throw new ConfigError("MAIL_DIR and SMTP_URL are both set: choose one");
  return dir;
}

/** SERVICE_ROLES: "api", "workers" or both (the default), comma-separated. */
function serviceRoles(env: Env, sandbox: boolean): ServiceRole[] {
  const raw = env.SERVICE_ROLES || SERVICE_ROLES.join(",");
  const roles = [...new Set(raw.split(",").map((part) => part.trim()))];
  if (roles.length === 0 || roles.some((role) => !(SERVICE_ROLES as readonly string[]).includes(role))) {
    throw bad("SERVICE_ROLES", raw, 'a list of "api" and "workers", e.g. "api,workers"');
  }
  // The built-in sandbox runs inside the instance that serves the API; another one would be a
  // second processor with its own state.
  if (sandbox && !roles.includes("api")) {
    throw bad(
      "SERVICE_ROLES",
      raw,
      'a list with "api" while PROCESSOR=sandbox (the sandbox runs in an api instance)',
    );
  }
  return SERVICE_ROLES.filter((role) => roles.includes(role));
}

/** Every environment variable the service reads; deployment files are checked against this list. */
export const ENVIRONMENT_VARIABLES = [
  "PORT",
  "HOST",
  "PUBLIC_URL",
  "FALLBACK_URL",
  "DATABASE_URL",
  "DATABASE_CONNECT_TIMEOUT_SECONDS",
  "DATABASE_STATEMENT_TIMEOUT_MS",
  "DATABASE_LOCK_TIMEOUT_MS",
  "DATABASE_POOL_MODE",
  "DATABASE_LISTEN_URL",
  "DATABASE_READ_URL",
  "DATABASE_READ_MAX_LAG_MS",
  "DATA_DIR",
  "REDIS_URL",
  "ADMIN_TOKEN",
  "METRICS_TOKEN",
  "PROCESSOR",
  "SANDBOX_PORT",
  "SANDBOX_HOST",
  ...PROCESSOR_CATALOG.flatMap((processor) => processor.settings.map((setting) => setting.name)),
  "PROCESSOR_CREATE_TIMEOUT_MS",
  "PROCESSOR_BREAKER_FAILURES",
  "PROCESSOR_BREAKER_SECONDS",
  "ABANDONED_CHECKOUT_SWEEP_MS",
  "CHECKOUT_TTL_SECONDS",
  "IDEMPOTENCY_LEASE_SECONDS",
  "WEBHOOK_RETRY_DELAYS",
  "WEBHOOK_TIMEOUT_MS",
  "WEBHOOK_CONCURRENCY",
  "WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS",
  "ALLOWED_PRIVATE_HOSTS",
  "RATE_LIMIT_MAX",
  "RATE_LIMIT_WINDOW_SECONDS",
  "AUTH_FAILURES_PER_MINUTE",
  "EXPIRY_SWEEP_INTERVAL_MS",
  "EXPIRY_RETRY_SECONDS",
  "REFUND_DEADLINE_MS",
  "REFUND_SETTLE_INTERVAL_MS",
  "DISPUTE_NOTICE_INTERVAL_MS",
  "WEBHOOK_ATTEMPT_RETENTION_DAYS",
  "PII_RETENTION_DAYS",
  "EVENT_RETENTION_DAYS",
  "AUDIT_RETENTION_DAYS",
  "RECONCILE_INTERVAL_HOURS",
  "SHUTDOWN_GRACE_SECONDS",
  "LOG_LEVEL",
  "TRUST_PROXY",
  "SMTP_URL",
  "MAIL_DIR",
  "SMTP_FROM",
  "RECEIPT_SUBJECT",
  "REFUND_RECEIPT_SUBJECT",
  "SECRETS_KEY",
  "OPERATORS_REQUIRE_2FA",
  "SERVICE_ROLES",
] as const;

/** Every setting, read and checked once; the first bad one stops the start with its own line. */
export function loadConfig(
  env: Env = process.env,
  catalog: readonly ProcessorDescriptor[] = PROCESSOR_CATALOG,
): Config {
  const port = integer(env, "PORT", 3000, 0, 65535);
  const publicUrl = httpUrl("PUBLIC_URL", env.PUBLIC_URL || `http://localhost:${port}`);
  const { sandbox, processors, named } = processorList(env, catalog);
  const live = !sandbox;
  const settingsOfProcessors = processorSettings(env, catalog, { live, processors, named }, publicUrl);
  // Each processor's own bounds are checked against it where the processors are made.
  const checkoutTtlSeconds = integer(env, "CHECKOUT_TTL_SECONDS", 1800, 1, 30 * 86400);
  const adminToken = env.ADMIN_TOKEN || undefined;
  // A guessable admin token is a key to every group: refused where real money moves.
  if (live && adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw bad(
      "ADMIN_TOKEN",
      "[hidden]",
      `at least ${MIN_ADMIN_TOKEN_LENGTH} characters with PROCESSOR=${named} (or unset, to have one generated)`,
    );
  }
  const secretsKeys = env.SECRETS_KEY ? parseSecretsKeys(env.SECRETS_KEY) : undefined;
  if (live && !secretsKeys) {
    throw new ConfigError(
      `PROCESSOR=${named} needs SECRETS_KEY (base64 of 32 random bytes, e.g. \`openssl rand -base64 32\`): ` +
        "it seals webhook signing secrets and two-factor secrets at rest",
    );
  }
  const host = env.HOST || "127.0.0.1";
  if (/\s|\//.test(host)) throw bad("HOST", host, "an address to listen on, e.g. 127.0.0.1 or 0.0.0.0");
  return {
    version: packageJson.version,
    port,
    host,
    publicUrl,
    fallbackUrl: env.FALLBACK_URL ? httpUrl("FALLBACK_URL", env.FALLBACK_URL) : undefined,
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databaseConnectTimeoutSeconds: integer(env, "DATABASE_CONNECT_TIMEOUT_SECONDS", 60, 0, 3600),
    databaseStatementTimeoutMs: integer(env, "DATABASE_STATEMENT_TIMEOUT_MS", 15_000, 100, 600_000),
    databaseLockTimeoutMs: integer(env, "DATABASE_LOCK_TIMEOUT_MS", 5_000, 50, 600_000),
    databasePoolMode: oneOf(env, "DATABASE_POOL_MODE", ["session", "transaction"] as const, "session"),
    databaseListenUrl: databaseUrl(env.DATABASE_LISTEN_URL, "DATABASE_LISTEN_URL"),
    databaseReadUrl: databaseUrl(env.DATABASE_READ_URL, "DATABASE_READ_URL"),
    databaseReadMaxLagMs: integer(env, "DATABASE_READ_MAX_LAG_MS", 5000, 0, 3_600_000),
    dataDir: env.DATA_DIR || "./data",
    redisUrl: env.REDIS_URL ? redisUrl(env.REDIS_URL) : undefined,
    adminToken,
    metricsToken: env.METRICS_TOKEN || undefined,
    sandbox,
    catalog,
    processors,
    processorSettings: settingsOfProcessors,
    sandboxPort: integer(env, "SANDBOX_PORT", port === 0 ? 0 : port + 1, 0, 65535),
    sandboxPortSource: env.SANDBOX_PORT ? "SANDBOX_PORT" : "PORT + 1",
    // Loopback unless told otherwise: the sandbox has no auth on its simulation endpoints.
    sandboxHost: env.SANDBOX_HOST || "127.0.0.1",
    processorCreateTimeoutMs: integer(env, "PROCESSOR_CREATE_TIMEOUT_MS", 8000, 10, 14_000),
    processorBreakerFailures: integer(env, "PROCESSOR_BREAKER_FAILURES", 5, 1, 1000),
    processorBreakerMs: Math.round(seconds(env, "PROCESSOR_BREAKER_SECONDS", 30, 3600) * 1000),
    abandonedCheckoutSweepMs: integer(env, "ABANDONED_CHECKOUT_SWEEP_MS", 10_000, 10, 50_000),
    checkoutTtlSeconds,
    idempotencyLeaseSeconds: integer(env, "IDEMPOTENCY_LEASE_SECONDS", 90, 1, 86400),
    webhookRetryDelaysMs: retryDelays(env.WEBHOOK_RETRY_DELAYS || "5,30,30"),
    webhookTimeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", 10000, 1, 600_000),
    webhookConcurrency: integer(env, "WEBHOOK_CONCURRENCY", 64, 1, 10000),
    webhookEndpointDisableAfterMs: Math.round(
      seconds(env, "WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS", 72, 24 * 365, "hours") * 3_600_000,
    ),
    allowedPrivateHosts: (env.ALLOWED_PRIVATE_HOSTS || "")
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
    rateLimitMax: integer(env, "RATE_LIMIT_MAX", 300, 1),
    rateLimitWindowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1),
    authFailuresPerMinute: integer(env, "AUTH_FAILURES_PER_MINUTE", 30, 1),
    expirySweepIntervalMs: integer(env, "EXPIRY_SWEEP_INTERVAL_MS", 5000, 10),
    expiryRetryMs: Math.round(seconds(env, "EXPIRY_RETRY_SECONDS", 60, 86400) * 1000),
    // The merchant hears within 10 s whatever the processor does.
    refundDeadlineMs: integer(env, "REFUND_DEADLINE_MS", 8000, 100, 10_000),
    refundSettleIntervalMs: integer(env, "REFUND_SETTLE_INTERVAL_MS", 2000, 10, 60_000),
    disputeNoticeIntervalMs: integer(env, "DISPUTE_NOTICE_INTERVAL_MS", 60_000, 10, 3_600_000),
    webhookAttemptRetentionDays: integer(env, "WEBHOOK_ATTEMPT_RETENTION_DAYS", 90, 0, 36_500),
    piiRetentionDays: integer(env, "PII_RETENTION_DAYS", 0, 0, 36_500),
    eventRetentionDays: integer(env, "EVENT_RETENTION_DAYS", 90, 0, 36_500),
    auditRetentionDays: integer(env, "AUDIT_RETENTION_DAYS", 400, 0, 36_500),
    reconcileIntervalHours: integer(env, "RECONCILE_INTERVAL_HOURS", 24, 0, 24 * 30),
    shutdownGraceMs: Math.round(seconds(env, "SHUTDOWN_GRACE_SECONDS", 5, 300) * 1000),
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    trustProxy: trustProxy(env.TRUST_PROXY),
    serviceRoles: serviceRoles(env, sandbox),
    secretsKeys,
    operatorsRequire2fa: oneOf(env, "OPERATORS_REQUIRE_2FA", ["true", "false"] as const, "false") === "true",
    smtpUrl: env.SMTP_URL ? smtpUrl(env.SMTP_URL) : undefined,
    mailDir: mailDir(env, sandbox),
    smtpFrom: env.SMTP_FROM || `Checkout <no-reply@${new URL(publicUrl).hostname}>`,
    receiptSubject: env.RECEIPT_SUBJECT || "Your receipt from {merchant}",
    refundReceiptSubject: env.REFUND_RECEIPT_SUBJECT || "Your refund from {merchant}",
  };
}
