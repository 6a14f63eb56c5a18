// DATABASE_READ_URL. The reads that may lag go to a streaming replica while its replay
// lag is under DATABASE_READ_MAX_LAG_MS; a replica that lags more, or is down, leaves them to the
// primary, and nothing fails. Against a real primary and its real replica (.ci/run makes them).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { postgresDatabase } from "../../../src/platform/db/database.ts";
import { LAG_CHECK_MS, withReadReplica } from "../../../src/platform/db/read-replica.ts";
import {
  createTestDatabase,
  REPLICA_ADMIN_URL,
  replicaUrlOf,
  type TestDatabase,
} from "../../helpers/database.ts";
import { cheapPasswordHashes, signedInUser } from "../../helpers/pages.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

const needsReplica =
  !REPLICA_ADMIN_URL &&
  "needs a streaming replica of a PostgreSQL server (Debian: apt-get install postgresql): " +
    "`bash scripts/replica-for-tests.sh` makes one and prints its socket directory DIR; then run with " +
    "TEST_DATABASE_URL=postgres://postgres@localhost:5440/postgres?host=DIR " +
    "TEST_DATABASE_READ_URL=postgres://postgres@localhost:5441/postgres?host=DIR (.ci/run does)";

/** Where a read ran: the replica is in recovery, the primary is not. */
const ranOn = async (q: { query<Row>(sql: string): Promise<Row[]> }) =>
  (await q.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby"))[0]?.standby
    ? "replica"
    : "primary";

/** Pauses the replica's replay (as a stuck or slow replica does) until the returned call. */
async function pauseReplay(): Promise<() => Promise<void>> {
  const admin = new pg.Client({ connectionString: REPLICA_ADMIN_URL });
  await admin.connect();
  await admin.query("SELECT pg_wal_replay_pause()");
  return async () => {
    await admin.query("SELECT pg_wal_replay_resume()");
    await admin.end();
  };
}

describe("reads that may lag, on a streaming replica", { skip: needsReplica }, () => {
  cheapPasswordHashes();
  let test: TestDatabase;
  before(async () => {
    test = await createTestDatabase();
  });
  after(() => test.db.close());

  const replicated = (maxLagMs: number, replicaUrl = replicaUrlOf(test.url as string) as string) =>
    withReadReplica(postgresDatabase(test.url as string), postgresDatabase(replicaUrl), maxLagMs);

  it("go to the replica while it keeps up; everything else goes to the primary", async () => {
    const db = replicated(5000);
    try {
      await waitFor(async () => (db.readTarget() === "replica" ? true : undefined), 5000, "replica in use");
      // What /metrics reports as checkout_database_replica_lag_seconds.
      const lag = db.replicaLagMs();
      assert.ok(lag !== null && lag >= 0 && lag <= 5000, String(lag));
      assert.equal(await ranOn(db.reads), "replica");
      assert.equal(await ranOn(db), "primary");
      assert.equal(await db.transaction((tx) => ranOn(tx)), "primary");
    } finally {
      await db.close();
    }
  });

  it("go to the primary, which has the newest writes, while the replica lags past the limit", async () => {
    const db = replicated(300);
    await waitFor(async () => (db.readTarget() === "replica" ? true : undefined), 5000, "replica in use");
    const resume = await pauseReplay();
    try {
      await db.query("INSERT INTO settings (name, value) VALUES ('replica-probe', 'written')");
      await waitFor(async () => (db.readTarget() === "primary" ? true : undefined), 5000, "primary again");
      assert.equal(await ranOn(db.reads), "primary");
      const seen = await db.reads.query("SELECT value FROM settings WHERE name = 'replica-probe'");
      assert.equal(seen.length, 1, "the read sees the write the replica has not replayed");
    } finally {
      await resume();
      await db.close();
    }
    // Caught up, the replica serves again.
    const again = replicated(300);
    try {
      await waitFor(async () => (again.readTarget() === "replica" ? true : undefined), 5000, "replica again");
    } finally {
      await again.close();
    }
  });

  it("go to the primary when the replica is down, and nothing fails", async () => {
    const down = new URL(replicaUrlOf(test.url as string) as string);
    down.searchParams.set("host", "/nonexistent-socket-dir");
    const db = replicated(5000, down.toString());
    try {
      await new Promise((resolve) => setTimeout(resolve, LAG_CHECK_MS * 2));
      assert.equal(db.readTarget(), "primary");
      assert.equal(await ranOn(db.reads), "primary");
    } finally {
      await db.close();
    }
  });
});

describe("the service on a lagging replica", { skip: needsReplica }, () => {
  cheapPasswordHashes();
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it("answers every request, and a user's own change shows on the page a form post leads to", async () => {
    const group = await service.createGroup({ name: "Replica shop" });
    const owner = await signedInUser(service, group, "owner@replica.example", "owner");
    const resume = await pauseReplay();
    try {
      const created = await service.createPayment(group, { amount: 2500 });
      assert.equal(created.status, 200);
      const id = created.body.data.transactionId;
      await service.sandboxPost(`/sandbox/sessions/${created.body.data.sessionId}/complete`, {
        outcome: "succeeded",
      });
      await waitFor(async () =>
        (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data.status === "succeeded"
          ? true
          : undefined,
      );
      // Lists may lag (by at most DATABASE_READ_MAX_LAG_MS); they answer all the same.
      assert.equal((await service.api(group, "GET", "/api/v1/payments")).status, 200);
      assert.equal((await owner.get("/dashboard/payments")).status, 200);
      assert.equal((await owner.get("/dashboard/payments.csv")).status, 200);
      assert.equal((await owner.get("/dashboard")).status, 200);
      // The page a form post redirects to reads the primary: the refund just made is on it.
      await owner.get(`/dashboard/payments/${id}`);
      const refunded = await owner.post(`/dashboard/payments/${id}/refunds`, {
        amount: "5.00",
        key: randomUUID(),
        confirm: "true",
      });
      assert.equal(refunded.status, 303);
      const after = await owner.get(refunded.headers.get("location") as string);
      assert.match(after.text, /<table id="refunds">[\s\S]*5\.00 USD/);
    } finally {
      await resume();
    }
  });
});
