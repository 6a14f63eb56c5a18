import packageJson from "../package.json" with { type: "json" };

export type ProcessorMode = "sandbox" | "stripe";

export interface Config {
  version: string;
  port: number;
  host: string;
  publicUrl: string;
  fallbackUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  processor: ProcessorMode;
  sandboxPort: number;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  stripeApiUrl: string | undefined;
  checkoutTtlSeconds: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  allowedPrivateHosts: string[];
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  expirySweepIntervalMs: number;
  logLevel: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

function url(name: string, raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

/** Seconds, decimals allowed: "5,30,30" or "0.05,0.1". */
function parseDelays(raw: string): number[] {
  const parts = raw.split(",").map((part) => part.trim());
  return parts.map((part) => {
    if (!/^\d+(\.\d+)?$/.test(part)) throw new ConfigError(`WEBHOOK_RETRY_DELAYS has a bad entry "${part}"`);
    return Math.round(Number(part) * 1000);
  });
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, "PORT", 3000, 0, 65535);
  const publicUrl = url("PUBLIC_URL", env.PUBLIC_URL || `http://localhost:${port}`);
  const processor = (env.PROCESSOR || "sandbox") as ProcessorMode;
  if (processor !== "sandbox" && processor !== "stripe") {
    throw new ConfigError(`PROCESSOR must be "sandbox" or "stripe", got "${processor}"`);
  }
  if (processor === "stripe" && (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET)) {
    throw new ConfigError("PROCESSOR=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET");
  }
  return {
    version: packageJson.version,
    port,
    host: env.HOST || "127.0.0.1",
    publicUrl,
    fallbackUrl: url("FALLBACK_URL", env.FALLBACK_URL || publicUrl),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "./data",
    redisUrl: env.REDIS_URL || undefined,
    adminToken: env.ADMIN_TOKEN || undefined,
    processor,
    sandboxPort: integer(env, "SANDBOX_PORT", port === 0 ? 0 : port + 1, 0, 65535),
    // The sandbox accepts any key; these defaults only make the embedded setup start with no settings.
    stripeSecretKey: env.STRIPE_SECRET_KEY || "sk_test_sandbox",
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || "whsec_sandbox_default_secret",
    stripeApiUrl: env.STRIPE_API_URL ? url("STRIPE_API_URL", env.STRIPE_API_URL) : undefined,
    checkoutTtlSeconds: integer(env, "CHECKOUT_TTL_SECONDS", 1800, 1, 86400),
    webhookRetryDelaysMs: parseDelays(env.WEBHOOK_RETRY_DELAYS || "5,30,30"),
    webhookTimeoutMs: integer(env, "WEBHOOK_TIMEOUT_MS", 10000, 1),
    webhookConcurrency: integer(env, "WEBHOOK_CONCURRENCY", 64, 1, 10000),
    allowedPrivateHosts: (env.ALLOWED_PRIVATE_HOSTS || "")
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
    rateLimitMax: integer(env, "RATE_LIMIT_MAX", 300, 1),
    rateLimitWindowSeconds: integer(env, "RATE_LIMIT_WINDOW_SECONDS", 60, 1),
    expirySweepIntervalMs: integer(env, "EXPIRY_SWEEP_INTERVAL_MS", 5000, 10),
    logLevel: env.LOG_LEVEL || "info",
  };
}
