// What the bench's scenarios share: the processes they start (the compiled service, the processor
// stub or sandbox), autocannon with a warm-up, and the figures the table is made of.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import type { Queryable } from "../src/platform/db/database.ts";
import { destinationOf } from "../src/webhooks/outbox.ts";
import { insertEventsWithDeliveries } from "../test/helpers/webhook-backlog.ts";
import { freePort, freshDatabase as freshBenchDatabase, waitUntilUp } from "./harness.ts";

const args = new Set(process.argv.slice(2));
export const QUICK = args.has("--quick");
const PROFILE = args.has("--profile");
export const DURATION_S = QUICK ? 4 : 15;
// The same warm-up quick or full: after 1 s a create had run ~900 times and V8 had not yet
// optimised its path (917 µs of CPU a create against 530 after 3 s), while the baselines' small
// routes were warm (docs/performance.md, "Method"). --quick shortens the measurement only.
export const WARMUP_S = 3;
export const CONNECTIONS = 32;
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const ADMIN_TOKEN = `adm_bench_${randomBytes(8).toString("hex")}`;
export const STRIPE_WEBHOOK_SECRET = "whsec_bench_secret";

/** A build of the service as `npm start` runs it: node's flags and the compiled entry point. */
export interface ServiceBuild {
  nodeArgs: string[];
  script: string;
}

/**
 * `npm start`'s command from the package.json in `root` ("node FLAGS… dist/src/main.js"): what
 * production runs. Each build keeps its own flags, so an A/B of a change to them measures it.
 */
export function startCommandIn(root: string): ServiceBuild {
  const words = (
    JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as { scripts: { start: string } }
  ).scripts.start
    .split(" ")
    .slice(1);
  return { nodeArgs: words.slice(0, -1), script: `${root}/${words.at(-1)}` };
}

const THIS_BUILD = startCommandIn(fileURLToPath(new URL("..", import.meta.url)));

export interface Figure {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  baseline?: string;
  note?: string;
  /** CPU time of the server under test per request, in microseconds (all its threads). */
  cpuUs?: number;
}

export const figures: Figure[] = [];
export const children: ChildProcess[] = [];
/** Set when any scenario errs: the bench then exits non-zero. */
export const outcome = { failed: false };

/** Node children: TypeScript through tsx; compiled JavaScript (the service, as `npm start` runs it) as is. */
export function start(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  scriptArgs: string[] = [],
): ChildProcess {
  const loader = script.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, script, ...scriptArgs], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout?.resume();
  children.push(child);
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(15000)]);
}

export async function rssMb(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples a process's resident memory until stopped; returns the peak. */
export function watchMemory(pid: number | undefined) {
  let peak = 0;
  const samples: number[] = [];
  const timer = setInterval(async () => {
    const mb = await rssMb(pid);
    samples.push(mb);
    peak = Math.max(peak, mb);
  }, 500);
  return {
    samples,
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

let measured: ChildProcess | undefined;

/** The server whose CPU time the following scenarios report per request. */
export function measureCpuOf(child: ChildProcess): void {
  measured = child;
}

/** CPU of every PostgreSQL process on this machine, in ms by pid (the server runs nothing else here). */
export function postgresCpu(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("postgres"))
        byPid.set(Number(pid), cpuMs(Number(pid)) ?? 0);
    } catch {}
  }
  return byPid;
}

/**
 * PostgreSQL's CPU since `before`, process by process: a backend that ended meanwhile (a pool
 * closing an idle connection) must not take its whole past out of the sum.
 */
export function postgresCpuSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of postgresCpu()) sum += ms - (before.get(pid) ?? 0);
  return sum;
}

/** User + system CPU of a process and its threads, in ms (Linux; clock ticks are 10 ms). */
export function cpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** One measured run of a warmed-up scenario, its CPU charged to `server`. */
async function measure(
  scenario: string,
  options: autocannon.Options,
  server: ChildProcess | undefined,
  extra: Pick<Figure, "baseline" | "note">,
): Promise<Figure> {
  const cpuBefore = cpuMs(server?.pid);
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  const cpuAfter = cpuMs(server?.pid);
  return {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    ...extra,
    ...(cpuBefore !== undefined &&
      cpuAfter !== undefined &&
      result.requests.total > 0 && {
        cpuUs: Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests.total),
      }),
  };
}

function record(figure: Figure): Figure {
  if (figure.errors > 0) outcome.failed = true;
  figures.push(figure);
  process.stderr.write(
    `  ${figure.scenario}: ${figure.rps} req/s, p99 ${figure.p99} ms${figure.errors ? `, ${figure.errors} errors` : ""}\n`,
  );
  return figure;
}

export async function cannon(
  scenario: string,
  options: autocannon.Options,
  extra: Pick<Figure, "baseline" | "note"> = {},
): Promise<Figure> {
  // Warmed first (JIT, connection pools, the SDK's agents), as a long-running service is.
  await autocannon({ connections: CONNECTIONS, duration: WARMUP_S, ...options });
  return record(await measure(scenario, options, measured, extra));
}

/** A scenario and the server whose CPU it is charged to. */
export interface Load {
  scenario: string;
  options: autocannon.Options;
  server: ChildProcess;
  extra?: Pick<Figure, "baseline" | "note">;
}

/**
 * The two sides of a ratio, measured fairly: each warmed up, then two rounds
 * of each in turn (baseline, service, baseline, service), and the best round of each kept, with
 * every round's errors. Measured one after the other, a minute of the VM's drift fell between a
 * baseline and its service: the same build's create came out at 67 % and 45 % of its baseline in
 * two quick runs a minute apart (docs/performance.md, "Method").
 */
export async function interleaved(baseline: Load, service: Load, rounds = 2): Promise<void> {
  const sides = [baseline, service];
  for (const side of sides) {
    await autocannon({ connections: CONNECTIONS, duration: WARMUP_S, ...side.options });
  }
  const best = new Map<Load, Figure>();
  for (let round = 0; round < rounds; round++) {
    for (const side of sides) {
      const figure = await measure(side.scenario, side.options, side.server, side.extra ?? {});
      const kept = best.get(side);
      if (!kept) best.set(side, figure);
      else {
        const errors = kept.errors + figure.errors;
        best.set(side, { ...(figure.rps > kept.rps ? figure : kept), errors });
      }
    }
  }
  for (const side of sides) record(best.get(side) as Figure);
}

export const freshDatabase = () => freshBenchDatabase(ADMIN_URL, "checkout_bench");

export interface Service {
  child: ChildProcess;
  url: string;
  sandboxUrl: string;
  keys: { "x-public-key": string; "x-secret-key": string };
  groupId: string;
}

/** The bench's processors: the bare stub for throughput, the sandbox for the end-to-end scenario. */
export interface Processor {
  url: string;
}

export async function startSandbox(serviceUrl: string): Promise<Processor> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The processor runs in its own process, as Stripe would, so its work is not charged to the service.
  start(
    "src/cli/main.ts",
    {
      SANDBOX_PORT: String(port),
      PUBLIC_URL: serviceUrl,
      STRIPE_WEBHOOK_SECRET,
      STRIPE_SECRET_KEY: "sk_test_bench",
      LOG_LEVEL: "warn",
    },
    [],
    ["sandbox"],
  );
  await waitUntilUp(`${url}/sandbox/requests`);
  return { url };
}

export async function startProcessorStub(): Promise<Processor> {
  const port = await freePort();
  start("bench/processor-stub.ts", { PORT: String(port) });
  await waitUntilUp(`http://127.0.0.1:${port}/stats`);
  return { url: `http://127.0.0.1:${port}` };
}

export async function startService(
  env: Record<string, string>,
  processor: Processor | ((serviceUrl: string) => Promise<Processor>),
  /** The build to start; another revision's for an A/B comparison (bench/ab.ts). */
  build = THIS_BUILD,
): Promise<Service> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { url: sandboxUrl } = typeof processor === "function" ? await processor(url) : processor;
  const child = start(
    build.script,
    {
      PORT: String(port),
      PROCESSOR: "stripe",
      SECRETS_KEY: Buffer.alloc(32, 4).toString("base64"),
      STRIPE_SECRET_KEY: "sk_test_bench",
      STRIPE_API_URL: sandboxUrl,
      PUBLIC_URL: url,
      ADMIN_TOKEN,
      LOG_LEVEL: "warn",
      RATE_LIMIT_MAX: "1000000000",
      STRIPE_WEBHOOK_SECRET,
      ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      EXPIRY_SWEEP_INTERVAL_MS: "60000",
      ...env,
    },
    [...build.nodeArgs, ...(PROFILE ? ["--cpu-prof", "--cpu-prof-dir=bench/profiles"] : [])],
  );
  await waitUntilUp(`${url}/health/ready`);
  measureCpuOf(child);
  // A worker instance serves its probes only: it has no group to make.
  if (env.SERVICE_ROLES === "workers") {
    return { child, url, sandboxUrl, keys: { "x-public-key": "", "x-secret-key": "" }, groupId: "" };
  }
  const response = await fetch(`${url}/admin/v1/groups`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench shop" }),
  });
  const group = (
    (await response.json()) as { data: { groupId: string; publicKey: string; secretKey: string } }
  ).data;
  return {
    child,
    url,
    sandboxUrl,
    keys: { "x-public-key": group.publicKey, "x-secret-key": group.secretKey },
    groupId: group.groupId,
  };
}

export const createBody = JSON.stringify({
  amount: 1999,
  currency: "usd",
  customerEmail: "bench@example.com",
  successUrl: "https://shop.example.com/ok/{transactionId}",
  cancelUrl: "https://shop.example.com/cart",
  metadata: { orderId: "bench" },
});

/** A create with the bench's body, as a merchant's server sends it. */
export const createLoad = (service: Service): autocannon.Options => ({
  url: `${service.url}/api/v1/payments/create`,
  method: "POST",
  headers: { ...service.keys, "content-type": "application/json" },
  body: createBody,
});

/** Get Payment over the given payments in turn, as a merchant's server polls them. */
export function getLoad(service: Service, payments: readonly { id: string }[]): autocannon.Options {
  let next = 0;
  return {
    url: service.url,
    requests: [
      {
        method: "GET",
        setupRequest: (request) => {
          next = (next + 1) % payments.length;
          return { ...request, path: `/api/v1/payments/${payments[next]?.id}`, headers: service.keys };
        },
      },
    ],
  };
}

/** The create-payment scenario, against the INSERT + POST baseline. */
export function createScenario(
  name: string,
  service: Service,
  baseline = "baseline: insert+post",
): Promise<Figure> {
  return cannon(name, createLoad(service), { baseline });
}

export async function createPayments(
  service: Service,
  count: number,
): Promise<{ id: string; sessionId: string }[]> {
  const created: { id: string; sessionId: string }[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${service.url}/api/v1/payments/create`, {
      method: "POST",
      headers: { ...service.keys, "content-type": "application/json" },
      body: createBody,
    });
    const data = ((await response.json()) as { data: { transactionId: string; sessionId: string } }).data;
    created.push({ id: data.transactionId, sessionId: data.sessionId });
  }
  return created;
}

/**
 * A dashboard user's cookies, as a browser holds them after signing in: the session's and the CSRF
 * secret's (set by the first page with a form, sent back with every later request). Invited by the
 * admin API, password set through the invite form.
 */
export async function dashboardCookie(service: Service, groupId: string): Promise<string> {
  const invite = await fetch(`${service.url}/admin/v1/groups/${groupId}/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email: `bench-${randomUUID()}@example.com`, role: "viewer" }),
  });
  const path = new URL(((await invite.json()) as { data: { inviteUrl: string } }).data.inviteUrl).pathname;
  const page = await fetch(`${service.url}${path}`);
  const csrfCookie = (page.headers.getSetCookie()[0] ?? "").split(";")[0] as string;
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  const accepted = await fetch(`${service.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: token, password: "bench password 123" }).toString(),
  });
  const session = accepted.headers.getSetCookie().find((cookie) => cookie.startsWith("checkout_session="));
  if (!session) throw new Error("could not sign the bench user in");
  return `${session.split(";")[0]}; ${csrfCookie}`;
}

/** The dashboard's CSV export of `rows` payments, read to its end: rows per second. */
export async function csvExport(
  scenario: string,
  service: Service,
  cookie: string,
  rows: number,
  extra: Pick<Figure, "baseline"> = {},
): Promise<Figure> {
  const started = performance.now();
  const csv = await fetch(`${service.url}/dashboard/payments.csv`, { headers: { cookie } });
  let lines = 0;
  for await (const chunk of csv.body as AsyncIterable<Uint8Array>) {
    for (const byte of chunk) if (byte === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  const figure = {
    scenario,
    rps: Math.round((lines - 1) / seconds),
    p50: 0,
    p99: 0,
    errors: lines - 1 === rows ? 0 : 1,
    note: `${(lines - 1).toLocaleString("en-US")} rows in ${seconds.toFixed(1)} s (rows/s)`,
    ...extra,
  };
  figures.push(figure);
  process.stderr.write(`  ${scenario}: ${lines - 1} rows in ${seconds.toFixed(1)} s\n`);
  return figure;
}

/** A Markdown table, columns padded to their widest cell. */
export function formatTable(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const rule = `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`;
  return [line(rows[0] ?? []), rule, ...rows.slice(1).map(line)].join("\n");
}

/**
 * `rows` finished payments of one group on one SafeSite, a second apart, newest now; 1 in 50,000
 * customers' addresses repeat, so a search by email finds a few. Then vacuumed, as a table this
 * size in production was long ago: not a fresh load autovacuum would walk while pages are measured.
 */
export async function seedPayments(
  db: Queryable,
  groupId: string,
  site: { id: string; url: string },
  rows: number,
): Promise<void> {
  process.stderr.write(`  seeding ${rows.toLocaleString("en-US")} payments\n`);
  // In batches: each is one statement, well inside the statement timeout.
  const batch = 100_000;
  for (let first = 1; first <= rows; first += batch) {
    await db.query(
      `INSERT INTO payments (id, group_id, status, amount, currency, customer_email, success_url, cancel_url,
         safe_site_id, safe_site_url, link_token, expires_at, created_at)
       SELECT gen_random_uuid(), $1, (ARRAY['succeeded','expired','failed','cancelled'])[1 + n % 4], 100 + n % 9900,
         'usd', 'customer' || (n % 50000) || '@example.com', 'https://s.example', 'https://c.example', $2, $3,
         md5(random()::text || n), now(), now() - make_interval(secs => n)
       FROM generate_series($4::int, $5::int) AS n`,
      [groupId, site.id, site.url, first, Math.min(first + batch - 1, rows)],
    );
  }
  await db.query("VACUUM (ANALYZE) payments");
}

/**
 * A backlog of `count` webhook deliveries to `url`, queued by the outbox's own statement; with
 * `toEndpoints`, each event also to every enabled endpoint of the group.
 */
export function queueWebhooks(
  db: Queryable,
  groupId: string,
  paymentId: string,
  url: string,
  count: number,
  toEndpoints = false,
) {
  return insertEventsWithDeliveries(
    db,
    {
      groupId,
      transactionId: paymentId,
      event: "payment.failed",
      status: "cancelled",
      payload: { event: "payment.failed", transactionId: paymentId, status: "cancelled", metadata: {} },
    },
    { url, destination: destinationOf(url) },
    count,
    toEndpoints,
  );
}

/** Deliveries to `url` the receiver acknowledged. */
export async function deliveredTo(db: Queryable, url: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_deliveries WHERE url = $1 AND state = 'succeeded'",
    [url],
  );
  return Number(row?.n);
}

/** How many POSTs the bench receiver on `port` has answered on `path`. */
export async function receivedAt(port: number, path: string): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`);
  return ((await answer.json()) as { received: number }).received;
}

/**
 * Queues `count` deliveries (about one payment of one group) to the receiver's `path` and times
 * their drain: from the backlog's commit (no dispatcher can see it earlier) until every outcome is
 * recorded. While the drain runs the bench asks the receiver, not the database it is measuring,
 * how far it has got.
 */
export async function drainBacklog(
  db: Queryable,
  port: number,
  path: string,
  count: number,
  about: { groupId: string; paymentId: string },
): Promise<{ rate: number }> {
  const url = `http://127.0.0.1:${port}${path}`;
  const queueStarted = performance.now();
  await queueWebhooks(db, about.groupId, about.paymentId, url, count);
  const started = performance.now();
  const deadline = Date.now() + 120_000;
  const waitFor = async (done: () => Promise<boolean>) => {
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`the backlog on ${path} was not delivered in time`);
      await sleep(10);
    }
  };
  await waitFor(async () => (await receivedAt(port, path)) >= count);
  await waitFor(async () => (await deliveredTo(db, url)) >= count);
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(
    `  ${path}: ${count} queued in ${Math.round(started - queueStarted)} ms, drained in ${Math.round(seconds * 1000)} ms\n`,
  );
  return { rate: Math.round(count / seconds) };
}
