import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { DatabaseUnavailableError, postgresDatabase } from "../src/platform/db/database.ts";
import {
  createTestDatabase,
  NEEDS_POSTGRES,
  onPostgres,
  type TestDatabase,
  throughPooler,
} from "./helpers/database.ts";
import { startTestService, type TestGroup, type TestService } from "./helpers/service.ts";
import { TcpProxy } from "./helpers/tcp-proxy.ts";
import { waitFor } from "./helpers/wait.ts";

const needsDirectServer =
  (!onPostgres && NEEDS_POSTGRES) ||
  (throughPooler && "cuts the server's own connections: the direct run covers it");

describe("PostgreSQL outage", { skip: needsDirectServer }, () => {
  let fresh: TestDatabase;
  let proxy: TcpProxy;
  let service: TestService;
  let group: TestGroup;
  let paymentId: string;

  before(async () => {
    fresh = await createTestDatabase();
    const target = new URL(fresh.url as string);
    proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const port = await proxy.open();
    const proxied = new URL(target);
    proxied.port = String(port);
    service = await startTestService({}, { db: postgresDatabase(proxied.toString()) });
    group = await service.createGroup();
    paymentId = (await service.createPayment(group)).body.data.transactionId;
  });
  after(async () => {
    await service.close();
    await proxy.cut();
    await fresh.db.close();
  });

  it("reports unhealthy, answers API calls with 503 in the envelope, and recovers by itself", async () => {
    assert.equal((await service.request("GET", "/health")).status, 200);
    await proxy.cut();

    const health = await service.request("GET", "/health");
    assert.equal(health.status, 503);
    assert.equal(health.body.status, "unhealthy");
    assert.equal(health.body.checks.database.status, "unhealthy");
    assert.equal(typeof health.body.checks.database.error, "string");
    // Public: no host, port or server message, only that it is unavailable.
    assert.equal(health.body.checks.database.error, "database unavailable");
    assert.equal(health.body.checks.database.latencyMs, undefined);

    const ready = await service.request("GET", "/health/ready");
    assert.deepEqual([ready.status, ready.body], [503, { status: "not_ready" }]);
    assert.equal((await service.request("GET", "/health/live")).status, 200, "the process itself is alive");

    for (const call of [
      () => service.api(group, "GET", `/api/v1/payments/${paymentId}`),
      () => service.createPayment(group),
      () => service.api(group, "DELETE", `/api/v1/payments/${paymentId}`),
    ]) {
      const response = await call();
      assert.equal(response.status, 503);
      assert.equal(response.body.success, false);
      assert.equal(response.body.error.code, "SERVICE_UNAVAILABLE");
    }

    await proxy.open();
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i++) {
      recovered = (await service.request("GET", "/health/ready")).status === 200;
      if (!recovered) await sleep(100);
    }
    assert.ok(recovered, "readiness returns once the database is back");
    const read = await service.api(group, "GET", `/api/v1/payments/${paymentId}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.status, "processing", "nothing was changed during the outage");
  });
});

describe("PostgreSQL refusing work", {
  skip: needsDirectServer,
}, () => {
  let fresh: TestDatabase;
  let service: TestService;
  let group: TestGroup;
  let payment: { transactionId: string; paymentUrl: string };
  const admin = () => {
    const client = new pg.Client({ connectionString: fresh.url as string });
    return client.connect().then(() => client);
  };

  before(async () => {
    fresh = await createTestDatabase();
    // An ordinary role, as in production: connection limits do not apply to superusers.
    const role = `checkout_app_${randomBytes(4).toString("hex")}`;
    const owner = await admin();
    await owner.query(`CREATE ROLE ${role} LOGIN`);
    await owner.query(`GRANT USAGE, CREATE ON SCHEMA public TO ${role}`);
    await owner.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
    await owner.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    await owner.end();
    const asRole = new URL(fresh.url as string);
    asRole.username = role;
    service = await startTestService(
      {},
      { db: postgresDatabase(asRole.toString(), { lockTimeoutMs: 300, statementTimeoutMs: 2000 }) },
    );
    group = await service.createGroup();
    payment = (await service.createPayment(group)).body.data;
  });
  after(async () => {
    await service.close();
    await fresh.db.close();
  });

  const expect503 = async () => {
    for (const call of [
      () => service.api(group, "GET", `/api/v1/payments/${payment.transactionId}`),
      () => service.createPayment(group),
    ]) {
      const response = await call();
      assert.equal(response.status, 503, JSON.stringify(response.body));
      assert.equal(response.body.error.code, "SERVICE_UNAVAILABLE");
      assert.equal(response.headers.get("retry-after"), "5");
    }
    const page = await service.request("GET", new URL(payment.paymentUrl).pathname);
    assert.equal(page.status, 503);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    assert.match(String(page.body), /briefly unavailable/);
  };

  it("a held table lock: 503 within the lock timeout, never a hang or a 500", async () => {
    const holder = await admin();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE payments IN ACCESS EXCLUSIVE MODE");
      const started = performance.now();
      await expect503();
      assert.ok(performance.now() - started < 5000, "bounded by the lock timeout");
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    assert.equal((await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}`)).status, 200);
  });

  it("ALLOW_CONNECTIONS false and a connection limit of 0: 503, then recovery", async () => {
    const name = new URL(fresh.url as string).pathname.slice(1);
    const superuser = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await superuser.connect();
    // A backend that passed the connection check just before the ALTER committed (the
    // dispatcher reconnects on its own) can still be starting up when the first terminate
    // runs, so terminate until a pause later none is left.
    const cutOff = async (setting: string) => {
      await superuser.query(`ALTER DATABASE ${name} ${setting}`);
      for (let round = 0; round < 50; round++) {
        const { rowCount } = await superuser.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [name],
        );
        if (round > 0 && rowCount === 0) return;
        await sleep(50);
      }
      assert.fail(`backends of ${name} kept coming back`);
    };
    try {
      for (const [refuse, allow] of [
        ["ALLOW_CONNECTIONS false", "ALLOW_CONNECTIONS true"],
        ["CONNECTION LIMIT 0", "CONNECTION LIMIT -1"],
      ] as const) {
        await cutOff(refuse);
        await expect503();
        await superuser.query(`ALTER DATABASE ${name} ${allow}`);
        const back = await waitFor(async () => {
          const read = await service.api(group, "GET", `/api/v1/payments/${payment.transactionId}`);
          return read.status === 200 ? read : undefined;
        });
        assert.equal(back.body.data.status, "processing");
      }
    } finally {
      await superuser
        .query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true CONNECTION LIMIT -1`)
        .catch(() => {});
      await superuser.end();
    }
  });
});

describe("PostgreSQL lost inside a transaction (a failover)", { skip: needsDirectServer }, () => {
  it("rejects the transaction as unavailable and leaves the process running", async () => {
    const fresh = await createTestDatabase();
    const target = new URL(fresh.url as string);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(target);
    proxied.port = String(await proxy.open());
    const db = postgresDatabase(proxied.toString());
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("SELECT 1");
          // The server goes away between two statements, as a primary killed mid-request does.
          await proxy.cut();
          await sleep(100);
          await tx.query("SELECT 1");
        }),
        DatabaseUnavailableError,
      );
      await proxy.open();
      assert.deepEqual(await db.transaction((tx) => tx.query("SELECT 1 AS one")), [{ one: 1 }]);
      assert.deepEqual(uncaught, []);
    } finally {
      process.off("uncaughtException", record);
      await db.close();
      await proxy.cut();
      await fresh.db.close();
    }
  });
});
