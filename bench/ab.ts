// npm run bench:ab -- --base=REV [--path=/dashboard/payments] [--post] [--rounds=8] [--seconds=2]
// Two builds of the service side by side on one PostgreSQL database: REV's (built into .ab/REV)
// and the working tree's (dist/, built first), both started with this tree's `npm start` flags. Each is loaded in turn, the order alternating, for
// --rounds rounds: the VM's drift from one minute to the next falls on both alike, which two runs
// of `npm run bench` an hour apart cannot promise. Prints, per build, the requests served, the CPU
// per request of the service and of PostgreSQL, each round's p99 and the peak RSS.
//
// Paths: /api/v1/payments/{id} (a seeded payment's get), /api/v1/payments/create with --post, or
// any page under /dashboard (as a signed-in user). REV's dependencies are this tree's node_modules.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { postgresDatabase } from "../src/db/database.ts";
import {
  CONNECTIONS,
  children,
  cpuMs,
  createBody,
  dashboardCookie,
  freshDatabase,
  type Service,
  seedPayments,
  startProcessorStub,
  startService,
  stop,
} from "./kit.ts";

process.chdir(fileURLToPath(new URL("..", import.meta.url)));
const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const base = option("base");
if (!base)
  throw new Error("usage: npm run bench:ab -- --base=REV [--path=…] [--post] [--rounds=8] [--seconds=2]");
const path = option("path") ?? "/api/v1/payments/{id}";
const post = process.argv.includes("--post");
const rounds = Number(option("rounds") ?? 8);
const seconds = Number(option("seconds") ?? 2);

function run(command: string, args: string[], cwd = "."): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed`);
  return result.stdout.trim();
}

/** REV's sources, compiled with this tree's TypeScript, inside the repository so imports resolve. */
function buildBase(rev: string): string {
  const commit = run("git", ["rev-parse", "--short", rev]);
  const dir = `.ab/${commit}`;
  if (!existsSync(`${dir}/dist/src/main.js`)) {
    mkdirSync(dir, { recursive: true });
    run("sh", ["-c", `git archive ${commit} | tar -x -C ${dir}`]);
    run(process.execPath, ["scripts/build.mjs"], dir);
  }
  return `${dir}/dist/src/main.js`;
}

/** CPU of every PostgreSQL process on this machine, in ms (the server runs nothing else here). */
function postgresCpuMs(): number {
  let sum = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("postgres")) sum += cpuMs(Number(pid)) ?? 0;
    } catch {}
  }
  return sum;
}

/** The service's peak resident memory since it started (VmHWM). */
const peakRssMb = (service: Service) =>
  Math.round(
    Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${service.child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024,
  );

const baseScript = buildBase(base);
run("npm", ["run", "build"]);
const database = await freshDatabase();
const stub = await startProcessorStub();
try {
  const builds = [
    { name: `A ${base}`, service: await startService({ DATABASE_URL: database.url }, stub, baseScript) },
    { name: "B working tree", service: await startService({ DATABASE_URL: database.url }, stub) },
  ];
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
      const postgresBefore = postgresCpuMs();
      const result = await load(side, seconds);
      if (result.non2xx + result.errors > 0)
        throw new Error(`${side.name}: ${result.non2xx + result.errors} failed`);
      side.serviceMs += (cpuMs(side.service.child.pid) ?? 0) - serviceBefore;
      side.postgresMs += postgresCpuMs() - postgresBefore;
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
