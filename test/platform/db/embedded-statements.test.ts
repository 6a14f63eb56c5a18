import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import type { Database } from "../../../src/platform/db/database.ts";
import { embeddedDatabase } from "../../../src/platform/db/embedded-statements.ts";
import { startEmbeddedThread } from "../../../src/platform/db/embedded-thread.ts";
import { prepared } from "../../../src/platform/db/prepared.ts";

const INSERT = prepared(
  "INSERT INTO named_t (id, at, doc, tags, note) VALUES ($1, $2, $3, $4, $5) RETURNING id",
);
const SELECT = prepared("SELECT id, at, doc, tags, note FROM named_t WHERE id = $1");
const COUNT = prepared("SELECT count(*)::int AS n FROM named_t");

// Statements marked `prepared` run on PGlite by name: parsed once, then bound and run. Both forms
// of the embedded database (in process, as the tests use it; on its thread, as the service does)
// must answer them as PGlite's own query would, errors and transactions included.
for (const form of ["in process", "on its thread"] as const) {
  describe(`named statements on the embedded database, ${form}`, () => {
    let dir: string;
    let db: Database;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), "embedded-statements-"));
      db =
        form === "in process"
          ? embeddedDatabase(await PGlite.create())
          : await startEmbeddedThread({ dataDir: join(dir, "pglite") });
      await db.exec(
        "CREATE TABLE named_t (id int PRIMARY KEY, at timestamptz, doc jsonb, tags uuid[], note text)",
      );
    });
    after(async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("binds and reads dates, JSON, arrays, integers and nulls, and is prepared once", async () => {
      const tag = "5f0c6c1e-8d1b-4c57-9a43-1f1d3c1b2a10";
      for (const id of [1, 2]) {
        await db.query(INSERT, [id, new Date("2026-11-29T00:00:00Z"), { a: [id] }, [tag], null]);
      }
      const [row] = await db.query(SELECT, [2]);
      assert.deepEqual(row, {
        id: 2,
        at: new Date("2026-11-29T00:00:00Z"),
        doc: { a: [2] },
        tags: [tag],
        note: null,
      });
      assert.deepEqual(await db.query(SELECT, [99]), []);
      const statements = await db.query<{ statement: string }>(
        "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%named_t%'",
      );
      assert.deepEqual(statements.map((entry) => entry.statement).sort(), [INSERT, SELECT].sort());
    });

    it("keeps PostgreSQL's error and goes on answering, in and out of a transaction", async () => {
      const duplicate = (await db.query(INSERT, [1, null, null, null, null]).catch((error) => error)) as {
        code?: string;
      };
      assert.equal(duplicate.code, "23505");
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query(INSERT, [3, null, null, null, "kept only if committed"]);
          await tx.query(INSERT, [1, null, null, null, null]);
        }),
        (error: { code?: string }) => error.code === "23505",
      );
      assert.deepEqual(await db.query(COUNT), [{ n: 2 }]);
      await db.transaction(async (tx) => {
        await tx.query(INSERT, [3, null, null, null, null]);
      });
      assert.deepEqual(await db.query(COUNT), [{ n: 3 }]);
    });

    it("waits outside a transaction until it ends, as PGlite's own query does", async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inserted: () => void = () => {};
      const insertedYet = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const transaction = db.transaction(async (tx) => {
        await tx.query(INSERT, [4, null, null, null, null]);
        inserted();
        await held;
      });
      await insertedYet;
      let counted: unknown;
      const count = db.query(COUNT).then((rows) => {
        counted = rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(counted, undefined, "the count ran inside the open transaction");
      release();
      await transaction;
      await count;
      assert.deepEqual(counted, [{ n: 4 }]);
    });
  });
}
