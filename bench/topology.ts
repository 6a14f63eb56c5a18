// `npm run bench -- --only=topology` (part of every full run): the shape production runs in,
// measured against same-run baselines of the same shape. Create and Get Payment through Debian's
// PgBouncer in transaction mode against the baselines through the same PgBouncer; the dashboard's
// list and CSV export read from a streaming replica against the same read from its primary.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import pg from "pg";
import { postgresDatabase } from "../src/platform/db/database.ts";
import { freePort, waitUntilUp } from "./harness.ts";
import {
  ADMIN_TOKEN,
  cpuMs,
  createBody,
  createLoad,
  createPayments,
  csvExport,
  dashboardCookie,
  getLoad,
  interleaved,
  measureCpuOf,
  type Processor,
  postgresCpu,
  postgresCpuSince,
  QUICK,
  type Service,
  seedPayments,
  start,
  startService,
  stop,
} from "./kit.ts";
import { startWireCounter } from "./wire-count.ts";

const script = (name: string, ...args: string[]) =>
  execFileSync("bash", [`scripts/${name}`, ...args], { encoding: "utf8" }).trim();

/** Create and get through PgBouncer, service and baselines alike (`databaseUrl` is the direct URL). */
export async function pgbouncerScenarios(stub: Processor, databaseUrl: string): Promise<void> {
  const dir = script("pgbouncer-for-tests.sh");
  const direct = new URL(databaseUrl);
  const pooled = `postgres://postgres@localhost:6432${direct.pathname}?host=${dir}`;
  const baselinePort = await freePort();
  const baseline = start("bench/baseline-server.ts", {
    PORT: String(baselinePort),
    DATABASE_URL: pooled,
    DATABASE_POOL_MODE: "transaction",
    PROCESSOR_URL: stub.url,
  });
  let service: Service | undefined;
  try {
    await waitUntilUp(`http://127.0.0.1:${baselinePort}/bare`);
    measureCpuOf(baseline);
    service = await startService(
      { DATABASE_URL: pooled, DATABASE_POOL_MODE: "transaction", DATABASE_LISTEN_URL: databaseUrl },
      stub,
    );
    const baseUrl = `http://127.0.0.1:${baselinePort}`;
    const insertPost = {
      scenario: "baseline: insert+post (pgbouncer)",
      options: {
        url: `${baseUrl}/insert-post`,
        method: "POST" as const,
        headers: { "content-type": "application/json" },
        body: createBody,
      },
      server: baseline,
    };
    await interleaved(insertPost, {
      scenario: "create (pgbouncer)",
      options: createLoad(service),
      server: service.child,
      extra: { baseline: insertPost.scenario },
    });
    const select = {
      scenario: "baseline: select (pgbouncer)",
      options: { url: `${baseUrl}/select` },
      server: baseline,
    };
    await interleaved(select, {
      scenario: "get (pgbouncer)",
      options: getLoad(service, await createPayments(service, 200)),
      server: service.child,
      extra: { baseline: select.scenario },
    });
    await stop(service.child);
    service = undefined;
    await stop(baseline);
    await wireCosts(stub, databaseUrl, dir);
  } finally {
    if (service) await stop(service.child);
    await stop(baseline);
    execFileSync("bash", ["-c", `kill "$(cat ${dir}/pgbouncer.pid)"`]);
  }
}

/**
 * What a get and a create cost on the wire and in PostgreSQL, direct and through PgBouncer, and
 * their baselines': statements and round trips a request (counted by a proxy reading the
 * protocol), PostgreSQL's CPU and PgBouncer's a request. The two services and two baseline servers
 * run side by side; each load runs in turn, the order alternating, for two rounds of a fixed
 * number of requests, and the lower CPU of each is kept, as the best round is elsewhere.
 */
async function wireCosts(stub: Processor, databaseUrl: string, pgbouncerDir: string): Promise<void> {
  const direct = new URL(databaseUrl);
  const counters = {
    direct: await startWireCounter({ host: direct.hostname, port: Number(direct.port || 5432) }),
    pooled: await startWireCounter({ path: `${pgbouncerDir}/.s.PGSQL.6432` }),
  };
  const urlThrough = (port: number) => `postgres://postgres@127.0.0.1:${port}${direct.pathname}`;
  const pgbouncerPid = Number(readFileSync(`${pgbouncerDir}/pgbouncer.pid`, "utf8"));
  const requests = QUICK ? 4000 : 20000;
  const services: Service[] = [];
  try {
    const sides: { label: string; counter: keyof typeof counters; options: autocannon.Options }[] = [];
    for (const counter of ["direct", "pooled"] as const) {
      const url = urlThrough(counters[counter].port);
      const pooledEnv = counter === "pooled" ? { DATABASE_POOL_MODE: "transaction" } : {};
      const port = await freePort();
      start("bench/baseline-server.ts", {
        PORT: String(port),
        DATABASE_URL: url,
        PROCESSOR_URL: stub.url,
        ...pooledEnv,
      });
      await waitUntilUp(`http://127.0.0.1:${port}/bare`);
      sides.push(
        {
          label: `baseline: select (${counter})`,
          counter,
          options: { url: `http://127.0.0.1:${port}/select` },
        },
        {
          label: `baseline: insert+post (${counter})`,
          counter,
          options: {
            url: `http://127.0.0.1:${port}/insert-post`,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: createBody,
          },
        },
      );
      const service = await startService(
        {
          DATABASE_URL: url,
          ...pooledEnv,
          ...(counter === "pooled" && { DATABASE_LISTEN_URL: databaseUrl }),
        },
        stub,
      );
      services.push(service);
      sides.push(
        { label: `get (${counter})`, counter, options: getLoad(service, await createPayments(service, 200)) },
        { label: `create (${counter})`, counter, options: createLoad(service) },
      );
    }
    const best = new Map<string, string[]>();
    const bestCpu = new Map<string, number>();
    for (const side of sides) await autocannon({ ...side.options, connections: 32, amount: 1000 });
    for (let round = 0; round < 2; round++) {
      for (const side of round === 0 ? sides : [...sides].reverse()) {
        const counts = { ...counters[side.counter].counts };
        const postgresBefore = postgresCpu();
        const pgbouncerBefore = cpuMs(pgbouncerPid) ?? 0;
        const result = await autocannon({ ...side.options, connections: 32, amount: requests });
        const served = result.requests.total;
        if (result.non2xx + result.errors > 0)
          throw new Error(`${side.label}: ${result.non2xx + result.errors} failed`);
        const postgres = Math.round((postgresCpuSince(postgresBefore) * 1000) / served);
        const pgbouncer = Math.round((((cpuMs(pgbouncerPid) ?? 0) - pgbouncerBefore) * 1000) / served);
        if (postgres >= (bestCpu.get(side.label) ?? Number.POSITIVE_INFINITY)) continue;
        bestCpu.set(side.label, postgres);
        const after = counters[side.counter].counts;
        const each = (n: number) => (n / served).toFixed(2);
        best.set(side.label, [
          side.label,
          each(after.statements - counts.statements),
          each(after.roundTrips - counts.roundTrips),
          each(after.parses - counts.parses),
          String(postgres),
          side.counter === "pooled" ? String(pgbouncer) : "",
        ]);
      }
    }
    const header = [
      "a request",
      "statements",
      "round trips",
      "parses",
      "PostgreSQL CPU µs",
      "PgBouncer CPU µs",
    ];
    const rows = [header, header.map(() => "---"), ...sides.map((side) => best.get(side.label) ?? [])];
    process.stdout.write(
      `\n${rows.map((row) => `| ${row.join(" | ")} |`).join("\n")}\n` +
        `(${requests} requests a round at 32 connections, after 1,000 of warm-up; the lower of two rounds)\n\n`,
    );
  } finally {
    for (const service of services) await stop(service.child);
    await counters.direct.close();
    await counters.pooled.close();
  }
}

/**
 * The dashboard's first page and CSV export from two services on one primary: one reading from
 * the primary, one from its streaming replica (DATABASE_READ_URL), over the same seeded group.
 */
export async function replicaScenarios(stub: Processor): Promise<void> {
  const rows = QUICK ? 100_000 : 1_000_000;
  const dir = script("replica-for-tests.sh");
  const clusterUrl = (port: number, database: string) =>
    `postgres://postgres@localhost:${port}/${database}?host=${dir}`;
  const services: Service[] = [];
  try {
    const setup = new pg.Client({ connectionString: clusterUrl(5440, "postgres") });
    await setup.connect();
    await setup.query("CREATE DATABASE checkout_bench_replica");
    await setup.end();
    const primaryUrl = clusterUrl(5440, "checkout_bench_replica");
    const onPrimary = await startService({ DATABASE_URL: primaryUrl }, stub);
    services.push(onPrimary);
    const onReplica = await startService(
      { DATABASE_URL: primaryUrl, DATABASE_READ_URL: clusterUrl(5441, "checkout_bench_replica") },
      stub,
    );
    services.push(onReplica);

    const response = await fetch(`${onPrimary.url}/admin/v1/groups`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench replica" }),
    });
    const group = (
      (await response.json()) as { data: { groupId: string; safeSites: { id: string; url: string }[] } }
    ).data;
    const db = postgresDatabase(primaryUrl, { max: 2 });
    try {
      await seedPayments(db, group.groupId, group.safeSites[0] as { id: string; url: string }, rows);
      await caughtUp(db, clusterUrl(5441, "postgres"));
    } finally {
      await db.close();
    }
    const cookies = [
      await dashboardCookie(onPrimary, group.groupId),
      await dashboardCookie(onReplica, group.groupId),
    ] as const;
    const page = (service: Service, cookie: string) => ({
      url: `${service.url}/dashboard/payments`,
      headers: { cookie },
    });
    await interleaved(
      {
        scenario: "dashboard list (primary)",
        options: page(onPrimary, cookies[0]),
        server: onPrimary.child,
      },
      {
        scenario: "dashboard list (replica)",
        options: page(onReplica, cookies[1]),
        server: onReplica.child,
        extra: { baseline: "dashboard list (primary)" },
      },
    );
    await csvExport("dashboard CSV export (primary)", onPrimary, cookies[0], rows);
    await csvExport("dashboard CSV export (replica)", onReplica, cookies[1], rows, {
      baseline: "dashboard CSV export (primary)",
    });
  } finally {
    for (const service of services) await stop(service.child);
    script("replica-for-tests.sh", "stop", dir);
  }
}

/** Waits until the replica has replayed everything the primary has written so far. */
async function caughtUp(primary: ReturnType<typeof postgresDatabase>, replicaUrl: string): Promise<void> {
  const [written] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  const replica = new pg.Client({ connectionString: replicaUrl });
  await replica.connect();
  try {
    for (let attempt = 0; attempt < 600; attempt++) {
      const { rows } = await replica.query("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [
        written?.lsn,
      ]);
      if (rows[0].done) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the replica did not catch up in 60 s");
  } finally {
    await replica.end();
  }
}
