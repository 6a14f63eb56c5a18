// What the chaos scenarios share: the figures table, the service and sandbox processes they start
// on loopback, and the merchant calls they make.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort, freshDatabase as freshHarnessDatabase, waitUntilUp } from "../bench/harness.ts";

process.chdir(fileURLToPath(new URL("..", import.meta.url)));
export const QUICK = process.argv.includes("--quick");
export const ADMIN_URL = process.env.CHAOS_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const ADMIN_TOKEN = `adm_chaos_${randomBytes(8).toString("hex")}`;
export const SECRET_KEY = "sk_test_chaos";
export const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString("base64")}`;
export const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);

export interface Row {
  scenario: string;
  figure: string;
  value: number;
  target: string;
  ok: boolean;
}
export const rows: Row[] = [];
export const record = (scenario: string, figure: string, value: number, target: string, ok: boolean) => {
  rows.push({ scenario, figure, value, target, ok });
  process.stderr.write(`  ${scenario}: ${figure} = ${value} (${target})${ok ? "" : "  MISSED"}\n`);
};
export const zero = (scenario: string, figure: string, value: number) =>
  record(scenario, figure, value, "0", value === 0);

export const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export async function freshDatabase(
  adminUrl = ADMIN_URL,
): Promise<{ url: string; client: pg.Client; drop: () => Promise<void> }> {
  const database = await freshHarnessDatabase(adminUrl, "checkout_chaos");
  const client = new pg.Client({ connectionString: database.url });
  return {
    url: database.url,
    client,
    drop: async () => {
      await client.end().catch(() => {});
      await database.drop();
    },
  };
}

export function spawnNode(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // CHAOS_LOG_DIR keeps each process's stderr (one file per pid) for a run that needs explaining.
  const logDir = process.env.CHAOS_LOG_DIR;
  if (logDir) child.stderr?.pipe(createWriteStream(join(logDir, `${child.pid}.log`)));
  else child.stderr?.resume();
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

export interface Instance {
  port: number;
  url: string;
  child?: ChildProcess;
}

/** Both processors' settings, shared by the sandbox and the service that talks to it. */
export const SQUARE_ENV = {
  SQUARE_ACCESS_TOKEN: "EAAAchaos",
  SQUARE_LOCATION_ID: "LCHAOS",
  SQUARE_WEBHOOK_SIGNATURE_KEY: randomBytes(24).toString("base64url"),
};

/** `checkout sandbox`, keeping its objects in the scenario's database. */
export async function startSandbox(eventsUrl: string, databaseUrl: string): Promise<string> {
  const port = await freePort();
  spawnNode(["--import", "tsx", "src/cli/main.ts", "sandbox"], {
    SANDBOX_PORT: String(port),
    PUBLIC_URL: eventsUrl,
    DATABASE_URL: databaseUrl,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...SQUARE_ENV,
    LOG_LEVEL: "silent",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/sandbox/requests`);
  return url;
}

export function launch(
  instance: Instance,
  databaseUrl: string,
  sandboxUrl: string,
  publicUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<void> {
  instance.child = spawnNode(["dist/src/main.js"], {
    PORT: String(instance.port),
    PUBLIC_URL: publicUrl,
    DATABASE_URL: databaseUrl,
    PROCESSOR: "stripe",
    SECRETS_KEY: Buffer.alloc(32, 5).toString("base64"),
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: sandboxUrl,
    ...SQUARE_ENV,
    SQUARE_API_URL: sandboxUrl,
    ADMIN_TOKEN,
    LOG_LEVEL: "silent",
    RATE_LIMIT_MAX: "1000000000",
    AUTH_FAILURES_PER_MINUTE: "1000000000",
    ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
    WEBHOOK_RETRY_DELAYS: "0.2,0.5,1",
    WEBHOOK_TIMEOUT_MS: "2000",
    IDEMPOTENCY_LEASE_SECONDS: "2",
    SHUTDOWN_GRACE_SECONDS: "0",
    DATABASE_CONNECT_TIMEOUT_SECONDS: "30",
    ...extraEnv,
  });
  return waitUntilUp(`${instance.url}/health/ready`);
}

export async function createGroup(url: string, siteUrl: string) {
  const response = await fetch(`${url}/admin/v1/groups`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Chaos shop", safeSites: [{ name: "Main", url: siteUrl }] }),
  });
  const { data } = (await response.json()) as { data: { publicKey: string; secretKey: string } };
  return { "x-public-key": data.publicKey, "x-secret-key": data.secretKey };
}

/** One instance with its own sandbox and a group of its own. */
export async function singleInstance(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  const port = await freePort();
  const instance: Instance = { port, url: `http://127.0.0.1:${port}` };
  const sandboxUrl = await startSandbox(instance.url, databaseUrl);
  await launch(instance, databaseUrl, sandboxUrl, instance.url, extraEnv);
  return { instance, sandboxUrl, keys: await createGroup(instance.url, instance.url) };
}

export const paymentBody = (webhookUrl: string) => ({
  amount: 1500,
  currency: "usd",
  customerEmail: "chaos@example.com",
  successUrl: "https://shop.example.com/ok",
  cancelUrl: "https://shop.example.com/no",
  webhookUrl,
});

/** A merchant API call with a group's keys, JSON both ways. */
export async function merchantCall(
  baseUrl: string,
  keys: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...keys, ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
}

/** The sandbox's simulation and fault endpoints (JSON, no auth). */
export const sandboxCaller = (sandboxUrl: string) => (method: string, path: string, body?: unknown) =>
  fetch(`${sandboxUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  }).then((response) => response.json() as Promise<Record<string, unknown>>);

export type RoleInstance = Instance & { roles: string };

/**
 * The roles split as operators run them: two API-only instances and one worker on `databaseUrl`,
 * with a sandbox keeping its books in `sandboxDatabaseUrl` and posting events to the first.
 */
export async function apiAndWorkerInstances(databaseUrl: string, sandboxDatabaseUrl: string) {
  const instances: RoleInstance[] = [];
  for (const roles of ["api", "api", "workers"]) {
    const port = await freePort();
    instances.push({ port, url: `http://127.0.0.1:${port}`, roles });
  }
  const api = instances.filter((instance) => instance.roles === "api");
  const first = api[0] as Instance;
  const sandboxUrl = await startSandbox(first.url, sandboxDatabaseUrl);
  const start = (instance: RoleInstance) =>
    launch(instance, databaseUrl, sandboxUrl, first.url, { SERVICE_ROLES: instance.roles });
  for (const instance of instances) await start(instance);
  return { instances, api, first, sandboxUrl, start };
}
