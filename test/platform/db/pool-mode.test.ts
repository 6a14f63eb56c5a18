// Behind a transaction pooler (DATABASE_POOL_MODE=transaction) the service keeps no
// state on a server connection: no named statements, timeouts set per transaction, and LISTEN on a
// direct connection or, without one, polling. The suite's pooled run (.ci/run) runs all of it
// through Debian's PgBouncer; these pin the mode down on any PostgreSQL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { LISTEN_POLL_MS, postgresDatabase } from "../../../src/platform/db/database.ts";
import { prepared } from "../../../src/platform/db/prepared.ts";
import {
  createTestDatabase,
  directUrlOf,
  NEEDS_POSTGRES,
  onPostgres,
  type TestDatabase,
} from "../../helpers/database.ts";

describe("DATABASE_POOL_MODE=transaction", {
  skip: !onPostgres && NEEDS_POSTGRES,
}, () => {
  let test: TestDatabase;
  before(async () => {
    test = await createTestDatabase();
  });
  after(() => test.db.close());

  const pooled = () =>
    postgresDatabase(test.url as string, {
      poolMode: "transaction",
      statementTimeoutMs: 4321,
      lockTimeoutMs: 321,
    });

  it("names no statement, so none is left on a server connection another client may get", async () => {
    const db = pooled();
    try {
      const kept = prepared("SELECT count(*)::int AS n FROM payments WHERE id = $1");
      const statements = await db.transaction(async (tx) => {
        await tx.query(kept, [randomUUID()]);
        return tx.query<{ name: string }>("SELECT name FROM pg_prepared_statements");
      });
      assert.deepEqual(statements, []);
    } finally {
      await db.close();
    }
  });

  it("bounds each transaction's statements and lock waits itself, not by startup parameters", async () => {
    const db = pooled();
    try {
      const inside = await db.transaction(async (tx) => ({
        statement: (await tx.query<{ statement_timeout: string }>("SHOW statement_timeout"))[0]
          ?.statement_timeout,
        lock: (await tx.query<{ lock_timeout: string }>("SHOW lock_timeout"))[0]?.lock_timeout,
      }));
      assert.deepEqual(inside, { statement: "4321ms", lock: "321ms" });
      // Nothing outlives the transaction on the connection.
      const [after] = await db.query<{ statement_timeout: string }>("SHOW statement_timeout");
      assert.notEqual(after?.statement_timeout, "4321ms");
    } finally {
      await db.close();
    }
  });

  it("without DATABASE_LISTEN_URL, tells each listener to look again every second", async () => {
    const db = pooled();
    try {
      const heard: (string | undefined)[] = [];
      const stop = await db.listen("safe_sites_changed", (payload) => heard.push(payload));
      await db.query("SELECT pg_notify('safe_sites_changed', 'not heard: no LISTEN here')");
      await new Promise((resolve) => setTimeout(resolve, LISTEN_POLL_MS * 1.5));
      await stop();
      assert.ok(heard.length >= 1, "polled at least once");
      assert.ok(
        heard.every((payload) => payload === undefined),
        "a poll carries no payload",
      );
    } finally {
      await db.close();
    }
  });

  it("with DATABASE_LISTEN_URL, hears notifications on that direct connection", async () => {
    // The server itself, not the pooler in front of it in the suite's pooled run.
    const listenUrl = directUrlOf(test.url as string);
    const db = postgresDatabase(test.url as string, { poolMode: "transaction", listenUrl });
    try {
      const heard: (string | undefined)[] = [];
      const stop = await db.listen("safe_sites_changed", (payload) => heard.push(payload));
      await db.query("SELECT pg_notify('safe_sites_changed', 'group-1')");
      const deadline = Date.now() + 3000;
      while (!heard.includes("group-1") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await stop();
      assert.ok(heard.includes("group-1"));
    } finally {
      await db.close();
    }
  });
});
