// `npm run bench -- --only=topology` (part of every full run): the shape production runs in,
// measured against same-run baselines of the same shape. Create and Get Payment through Debian's
// PgBouncer in transaction mode against the baselines through the same PgBouncer; the dashboard's
// list and CSV export read from a streaming replica against the same read from its primary.
import { execFileSync } from "node:child_process";
import pg from "pg";
import { postgresDatabase } from "../src/platform/db/database.ts";
import { freePort, waitUntilUp } from "./harness.ts";
import {
  ADMIN_TOKEN,
  createBody,
  createLoad,
  createPayments,
  csvExport,
  dashboardCookie,
  getLoad,
  interleaved,
  measureCpuOf,
  type Processor,
  QUICK,
  type Service,
  seedPayments,
  start,
  startService,
  stop,
} from "./kit.ts";

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
  } finally {
    if (service) await stop(service.child);
    await stop(baseline);
    execFileSync("bash", ["-c", `kill "$(cat ${dir}/pgbouncer.pid)"`]);
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
