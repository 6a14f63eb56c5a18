// Reading one setting: each parser names the variable, the value and what is expected when it
// does not hold, and the start stops with that one line.
/** A setting that cannot work; the message names the variable, the value and what is expected. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type Env = Record<string, string | undefined>;

export const bad = (name: string, raw: string, expected: string) =>
  new ConfigError(`${name}="${raw}" is not valid: expected ${expected}`);

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw bad(name, raw, `a whole number from ${min} to ${max}`);
  }
  return value;
}

export function seconds(env: Env, name: string, fallback: number, max: number, unit = "seconds"): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || Number(raw) > max) {
    throw bad(name, raw, `a number of ${unit} from 0 to ${max} (decimals allowed)`);
  }
  return Number(raw);
}

export function httpUrl(name: string, raw: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {}
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
    throw bad(name, raw, "an http:// or https:// URL");
  }
  return raw.replace(/\/+$/, "");
}

export function databaseUrl(raw: string | undefined, name = "DATABASE_URL"): string | undefined {
  if (!raw) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {}
  if (parsed?.protocol !== "postgres:" && parsed?.protocol !== "postgresql:") {
    // The value may hold a password: show only its scheme.
    const shown = /^[a-z][a-z0-9+.-]*:/i.exec(raw)?.[0] ?? "(not a URL)";
    throw new ConfigError(
      `${name} is not valid: got ${shown}…, expected postgres://user:password@host:5432/database` +
        (name === "DATABASE_URL" ? " (unset it to use the embedded database in DATA_DIR)" : ""),
    );
  }
  return raw;
}

/** Seconds, decimals allowed: "5,30,30" or "0.05,0.1". */
export function retryDelays(raw: string): number[] {
  const parts = raw.split(",").map((part) => part.trim());
  if (parts.some((part) => !/^\d+(\.\d+)?$/.test(part))) {
    throw bad("WEBHOOK_RETRY_DELAYS", raw, 'comma-separated seconds, e.g. "5,30,30"');
  }
  return parts.map((part) => Math.round(Number(part) * 1000));
}

export function oneOf<const T extends readonly string[]>(
  env: Env,
  name: string,
  choices: T,
  fallback: T[number],
) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!choices.includes(raw)) throw bad(name, raw, `one of ${choices.join(", ")}`);
  return raw as T[number];
}

/**
 * Unset: believe no forwarded header. "true" means one proxy (the nearest hop), never "believe any
 * X-Forwarded-For", which would let a client choose its own address and host. Else a hop count, or
 * the proxies' addresses/CIDRs.
 */
export function trustProxy(value: string | undefined): boolean | number | string {
  if (!value) return false;
  if (value === "true") return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  if (/^[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*$/.test(value)) return value;
  throw bad(
    "TRUST_PROXY",
    value,
    'true, a number of proxy hops, or the proxies\' addresses (e.g. "10.0.0.0/8,127.0.0.1")',
  );
}

/** "newest,older,…": each the base64 of 32 bytes. The value itself is never repeated in an error. */
export function parseSecretsKeys(raw: string): Buffer[] {
  const keys = raw.split(",").map((part) => Buffer.from(part.trim(), "base64"));
  if (keys.some((key) => key.length !== 32)) {
    throw new ConfigError(
      "SECRETS_KEY is not valid: expected base64 of 32 bytes (openssl rand -base64 32), newest first, comma-separated",
    );
  }
  return keys;
}

/** `raw` when it is a URL of one of `schemes` ("smtp:"), else a ConfigError naming `setting`. */
function urlOf(setting: string, raw: string, schemes: readonly string[], expected: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {}
  if (!parsed || !schemes.includes(parsed.protocol)) {
    throw new ConfigError(`${setting} is not valid: expected ${expected}`);
  }
  return raw;
}

export const smtpUrl = (raw: string): string =>
  urlOf("SMTP_URL", raw, ["smtp:", "smtps:"], "smtp://user:password@host:587 or smtps://…:465");

export const redisUrl = (raw: string): string =>
  urlOf("REDIS_URL", raw, ["redis:", "rediss:"], "redis://host:6379 or rediss://…");
