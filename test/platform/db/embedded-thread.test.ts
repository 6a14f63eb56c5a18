import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../../src/platform/db/database.ts";
import { startEmbeddedThread } from "../../../src/platform/db/embedded-thread.ts";
import { migrate } from "../../../src/platform/db/migrate.ts";

// The service's embedded database runs PGlite on its own thread (DATA_DIR mode). The suite's
// other tests use PGlite in process for speed; this one holds the thread to the same contract,
// and the process tests (test/process.test.ts, test/crash.test.ts) run the service on it.
describe("the embedded database on its own thread", () => {
  let dir: string;
  let db: Database;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "embedded-thread-"));
    db = await startEmbeddedThread({ dataDir: join(dir, "pglite") });
    await migrate(db);
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers queries with typed rows: dates, JSON, integers, nulls", async () => {
    await db.exec("CREATE TABLE t (id int PRIMARY KEY, at timestamptz, doc jsonb, note text)");
    await db.query("INSERT INTO t VALUES ($1, $2, $3, $4)", [
      1,
      new Date("2026-11-24T00:00:00Z"),
      { a: [1] },
      null,
    ]);
    const [row] = await db.query<{ id: number; at: Date; doc: unknown; note: null }>("SELECT * FROM t");
    assert.deepEqual(row, { id: 1, at: new Date("2026-11-24T00:00:00Z"), doc: { a: [1] }, note: null });
  });

  it("keeps PostgreSQL's error code and detail across the thread", async () => {
    const error = await db.query("INSERT INTO t VALUES (1)").then(
      () => assert.fail("a duplicate key must fail"),
      (failure: unknown) => failure as Error & { code?: string },
    );
    assert.equal(error.code, "23505");
    assert.match(error.message, /duplicate key/);
  });

  it("commits a transaction, rolls one back on a throw, and runs them one at a time", async () => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (2)");
    });
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (3)");
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    // Two transactions that each read then write the same counter: serialised, none is lost.
    await db.exec("CREATE TABLE counter (n int); INSERT INTO counter VALUES (0)");
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const [{ n } = { n: 0 }] = await tx.query<{ n: number }>("SELECT n FROM counter");
          await tx.query("UPDATE counter SET n = $1", [n + 1]);
        }),
      ),
    );
    const ids = (await db.query<{ id: number }>("SELECT id FROM t ORDER BY id")).map((row) => row.id);
    assert.deepEqual(ids, [1, 2], "the rolled-back row is not there");
    assert.deepEqual(await db.query("SELECT n FROM counter"), [{ n: 20 }]);
  });

  it("fails a statement inside a transaction without breaking the next one", async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (1)");
      }),
      (error: Error & { code?: string }) => error.code === "23505",
    );
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (4)");
    });
    assert.equal((await db.query("SELECT id FROM t WHERE id = 4")).length, 1);
  });
});
