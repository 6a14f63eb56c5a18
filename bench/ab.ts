// npm run bench:ab -- --base=REV [--path=/dashboard/payments] [--post] [--drain] [--rounds=8] [--seconds=2]
// Two builds of the service side by side on one PostgreSQL database: REV's (built into .ab/REV)
// and the working tree's (dist/, built first), each started with its own `npm start` flags, so a
// change to those is measured too. Each is loaded in turn, the order alternating, for --rounds
// rounds: the VM's drift from one minute to the next falls on both alike, which two runs
// of `npm run bench` an hour apart cannot promise. Prints, per build, the requests served, the CPU
// per request of the service and of PostgreSQL, each round's p99 and the peak RSS.
//
// Paths: /api/v1/payments/{id} (a seeded payment's get), /api/v1/payments/create with --post, or
// any page under /dashboard (as a signed-in user). With --drain, each build gets its own database
// and, each round, a backlog of webhook deliveries (--count, 3,000) to drain into one receiver.
// REV's dependencies are this tree's node_modules. With --traced, the working tree's build exports
// every span (OTEL_TRACES_SAMPLER=always_on) over OTLP to a local sink: tracing's cost.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { postgresDatabase } from "../src/platform/db/database.ts";
import { freePort, waitUntilUp } from "./harness.ts";
import {
  CONNECTIONS,
  children,
  cpuMs,
  createBody,
  createPayments,
  dashboardCookie,
  drainBacklog,
  freshDatabase,
  postgresCpu,
  postgresCpuSince,
  type Service,
  type ServiceBuild,
  seedPayments,
  start,
  startCommandIn,
  startProcessorStub,
  startService,
  stop,
} from "./kit.ts";

process.chdir(fileURLToPath(new URL("..", import.meta.url)));
const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const base = option("base");
if (!base)
  throw new Error(
    "usage: npm run bench:ab -- --base=REV [--path=…] [--post] [--traced] [--drain [--count=3000]] [--rounds=8] [--seconds=2]",
  );
const path = option("path") ?? "/api/v1/payments/{id}";
const post = process.argv.includes("--post");
const rounds = Number(option("rounds") ?? 8);
const seconds = Number(option("seconds") ?? 2);
const drain = process.argv.includes("--drain");
const traced = process.argv.includes("--traced");
const backlog = Number(option("count") ?? 3000);

function run(command: string, args: string[], cwd = "."): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed`);
  return result.stdout.trim();
}

/** REV's sources, compiled with this tree's TypeScript, inside the repository so imports resolve. */
function buildBase(rev: string): ServiceBuild {
  const commit = run("git", ["rev-parse", "--short", rev]);
  const dir = `.ab/${commit}`;
  if (!existsSync(`${dir}/dist/src/main.js`)) {
    mkdirSync(dir, { recursive: true });
    run("sh", ["-c", `git archive ${commit} | tar -x -C ${dir}`]);
    run(process.execPath, ["scripts/build.mjs"], dir);
  }
  return startCommandIn(dir);
}

/** The service's peak resident memory since it started (VmHWM). */
const peakRssMb = (service: Service) =>
  Math.round(
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${service.child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024,
  );

const baseBuild = buildBase(base);
run("npm", ["run", "build"]);
if (drain) {
  await compareDrains();
  process.exit(0);
}
const database = await freshDatabase();
const stub = await startProcessorStub();
try {
  const sinkPort = await freePort();
  const tracing: Record<string, string> = traced
    ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}`, OTEL_TRACES_SAMPLER: "always_on" }
    : {};
  const builds = [
    { name: `A ${base}`, service: await startService({ DATABASE_URL: database.url }, stub, baseBuild) },
    {
      name: traced ? "B working tree, every span exported" : "B working tree",
      service: await startService({ DATABASE_URL: database.url, ...tracing }, stub),
    },
  ];
  if (traced) {
    // Started after the services, so it stops after them: their last spans still land.
    start("bench/receiver.ts", { PORT: String(sinkPort) });
    await waitUntilUp(`http://127.0.0.1:${sinkPort}/`);
  }
  const first = builds[0]?.service as Service;
  const db = postgresDatabase(database.url, { max: 2 });
  const [site] = await db.query<{ id: string; url: string }>(
    "SELECT id, url FROM safe_sites WHERE group_id = $1 AND is_active",
    [first.groupId],
  );
  if (!site) throw new Error("the bench group has no active SafeSite");
  await seedPayments(db, first.groupId, site, 100_000);
  const [payment] = await db.query<{ id: string }>("SELECT id FROM payments WHERE group_id = $1 LIMIT 1", [
    first.groupId,
  ]);
  await db.close();
  const sides = await Promise.all(
    builds.map(async ({ name, service }) => ({
      name,
      service,
      url: `${service.url}${path.replace("{id}", payment?.id ?? "")}`,
      // Both builds act for the seeded group: API keys live in the shared database.
      headers: path.startsWith("/dashboard")
        ? { cookie: await dashboardCookie(service, first.groupId) }
        : { ...first.keys, "content-type": "application/json" },
      requests: 0,
      serviceMs: 0,
      postgresMs: 0,
      p99: [] as number[],
    })),
  );
  const load = (side: (typeof sides)[number], duration: number) =>
    autocannon({
      url: side.url,
      headers: side.headers,
      connections: CONNECTIONS,
      duration,
      ...(post && { method: "POST" as const, body: createBody }),
    });
  for (const side of sides) await load(side, 2);
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const serviceBefore = cpuMs(side.service.child.pid) ?? 0;
      const postgresBefore = postgresCpu();
      const result = await load(side, seconds);
      if (result.non2xx + result.errors > 0)
        throw new Error(`${side.name}: ${result.non2xx + result.errors} failed`);
      side.serviceMs += (cpuMs(side.service.child.pid) ?? 0) - serviceBefore;
      side.postgresMs += postgresCpuSince(postgresBefore);
      side.requests += result.requests.total;
      side.p99.push(result.latency.p99);
    }
  }
  console.log(
    `${path}${post ? " (POST)" : ""}, ${rounds} alternating rounds of ${seconds} s, ${CONNECTIONS} connections`,
  );
  for (const side of sides) {
    const perRequest = (ms: number) => Math.round((ms * 1000) / side.requests);
    console.log(
      `${side.name}: ${side.requests} requests; CPU µs/request: service ${perRequest(side.serviceMs)}, ` +
        `PostgreSQL ${perRequest(side.postgresMs)}; p99 ms ${side.p99.join(" ")}; peak RSS ${peakRssMb(side.service)} MB`,
    );
  }
} finally {
  for (const child of children) await stop(child);
  await database.drop();
}

/**
 * Each build drains a backlog of deliveries from its own database (two dispatchers on one database
 * would share the backlog) into one receiver, in alternating rounds.
 */
async function compareDrains(): Promise<void> {
  const stub = await startProcessorStub();
  const receiverPort = await freePort();
  start("bench/receiver.ts", { PORT: String(receiverPort) });
  await waitUntilUp(`http://127.0.0.1:${receiverPort}/`);
  const databases = [await freshDatabase(), await freshDatabase()];
  try {
    const sides = await Promise.all(
      [
        { name: `A ${base}`, build: baseBuild },
        { name: "B working tree", build: undefined },
      ].map(async ({ name, build }, index) => {
        const database = databases[index] as (typeof databases)[number];
        const service = await startService({ DATABASE_URL: database.url }, stub, build);
        const [payment] = await createPayments(service, 1);
        if (!payment) throw new Error(`${name}: could not create the payment the webhooks are about`);
        return {
          name,
          service,
          db: postgresDatabase(database.url, { max: 2 }),
          about: { groupId: service.groupId, paymentId: payment.id },
          delivered: 0,
          serviceMs: 0,
          postgresMs: 0,
          rates: [] as number[],
        };
      }),
    );
    for (let round = -1; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const serviceBefore = cpuMs(side.service.child.pid) ?? 0;
        const postgresBefore = postgresCpu();
        const path = `/${side.service.child.pid}/${round}`;
        const { rate } = await drainBacklog(side.db, receiverPort, path, backlog, side.about);
        // Round -1 warms both up and is not counted.
        if (round < 0) continue;
        side.serviceMs += (cpuMs(side.service.child.pid) ?? 0) - serviceBefore;
        side.postgresMs += postgresCpuSince(postgresBefore);
        side.delivered += backlog;
        side.rates.push(rate);
      }
    }
    console.log(`webhook drain, ${rounds} alternating rounds of ${backlog} deliveries`);
    for (const side of sides) {
      const perDelivery = (ms: number) => Math.round((ms * 1000) / side.delivered);
      const sorted = [...side.rates].sort((a, b) => a - b);
      console.log(
        `${side.name}: median ${sorted[Math.floor(sorted.length / 2)]}/s (${side.rates.join(" ")}); ` +
          `CPU µs/delivery: service ${perDelivery(side.serviceMs)}, PostgreSQL ${perDelivery(side.postgresMs)}; ` +
          `peak RSS ${peakRssMb(side.service)} MB`,
      );
      await side.db.close();
    }
  } finally {
    for (const child of children) await stop(child);
    for (const database of databases) await database.drop();
  }
}
