import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { postgresDatabase } from "../src/db/database.ts";
import { createTestDatabase, onPostgres, type TestDatabase } from "./helpers/database.ts";
import { startTestService, type TestGroup, type TestService } from "./helpers/service.ts";
import { TcpProxy } from "./helpers/tcp-proxy.ts";

describe("PostgreSQL outage", { skip: !onPostgres && "needs TEST_DATABASE_URL (runs in .ci/run)" }, () => {
  let fresh: TestDatabase;
  let proxy: TcpProxy;
  let service: TestService;
  let group: TestGroup;
  let paymentId: string;

  before(async () => {
    fresh = await createTestDatabase();
    const target = new URL(fresh.url as string);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
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
