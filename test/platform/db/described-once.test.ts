import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { prepared } from "../../../src/platform/db/prepared.ts";
import { createTestDatabase, NEEDS_NAMED_STATEMENTS, type TestDatabase } from "../../helpers/database.ts";

/** How many times pg asked the server to describe a portal while `work` ran. */
async function describesDuring(work: () => Promise<void>): Promise<number> {
  const connection = (pg as unknown as { Connection: { prototype: { describe(...args: unknown[]): void } } })
    .Connection.prototype;
  const describe = connection.describe;
  let count = 0;
  connection.describe = function (this: unknown, ...args: unknown[]) {
    count += 1;
    describe.apply(this, args);
  };
  try {
    await work();
  } finally {
    connection.describe = describe;
  }
  return count;
}

describe("prepared statements described once (src/platform/db/described-once.ts)", {
  skip: NEEDS_NAMED_STATEMENTS,
}, () => {
  let test: TestDatabase;
  let plain: pg.Client;
  before(async () => {
    test = await createTestDatabase();
    plain = new pg.Client({ connectionString: test.url });
    await plain.connect();
    await test.db.exec(`CREATE TABLE described_once (
      id uuid PRIMARY KEY, amount integer NOT NULL, big bigint, at timestamptz NOT NULL DEFAULT now(),
      doc jsonb, note text, flag boolean NOT NULL DEFAULT false, price numeric(10, 2))`);
  });
  after(async () => {
    await plain.end();
    await test.db.close();
  });

  it("returns what pg's own query returns, on the run that describes and on those that do not", async () => {
    const ids = [randomUUID(), randomUUID()];
    await test.db.query(
      `INSERT INTO described_once (id, amount, big, doc, note, flag, price)
       VALUES ($1, 1999, 9007199254740993, '{"a": [1, "x"]}', NULL, true, 12.5), ($2, -1, NULL, NULL, 'é', false, NULL)`,
      ids,
    );
    const text = prepared("SELECT * FROM described_once WHERE id = ANY($1::uuid[]) ORDER BY amount DESC");
    const expected = (await plain.query(text, [ids])).rows;
    assert.equal(expected.length, 2);
    // More runs than the pool has connections, some at once: some connections parse it first.
    const runs = await Promise.all(Array.from({ length: 40 }, () => test.db.query(text, [ids])));
    for (const rows of runs) assert.deepEqual(rows, expected);
    assert.deepEqual(await test.db.transaction((tx) => tx.query(text, [ids])), expected, "in a transaction");
    assert.deepEqual(await test.db.query(text, [[randomUUID()]]), [], "no row found");
  });

  it("asks PostgreSQL for a statement's columns once, and a one-off statement's every time", async () => {
    const text = prepared("SELECT id, amount FROM described_once WHERE amount > $1");
    const described = await describesDuring(async () => {
      for (let run = 0; run < 10; run++) await test.db.query(text, [0]);
    });
    assert.equal(described, 1);
    const oneOff = await describesDuring(async () => {
      for (let run = 0; run < 3; run++)
        await test.db.query("SELECT id FROM described_once WHERE amount > $1", [0]);
    });
    assert.equal(oneOff, 3);
  });

  it("runs a statement that returns no rows, and one that returns rows it writes", async () => {
    const insert = prepared("INSERT INTO described_once (id, amount) VALUES ($1, $2)");
    const insertReturning = prepared(
      "INSERT INTO described_once (id, amount) VALUES ($1, $2) RETURNING id, amount",
    );
    const written: string[] = [];
    for (let run = 0; run < 4; run++) {
      const id = randomUUID();
      assert.deepEqual(await test.db.query(insert, [id, run]), []);
      const other = randomUUID();
      assert.deepEqual(await test.db.query(insertReturning, [other, run]), [{ id: other, amount: run }]);
      written.push(id, other);
    }
    const [{ count }] = (
      await plain.query("SELECT count(*)::int AS count FROM described_once WHERE id = ANY($1)", [written])
    ).rows as [{ count: number }];
    assert.equal(count, 8);
  });

  it("rejects a failed run as pg does, and the connection serves the next", async () => {
    const insert = prepared("INSERT INTO described_once (id, amount) VALUES ($1, $2) RETURNING id");
    const id = randomUUID();
    await test.db.query(insert, [id, 1]);
    // More failures than the pool has connections: none is left broken.
    for (let run = 0; run < 35; run++) {
      await assert.rejects(test.db.query(insert, [id, 2]), { code: "23505" });
      await assert.rejects(test.db.query(insert, [randomUUID(), "not a number"]), { code: "22P02" });
    }
    await assert.rejects(
      test.db.transaction(async (tx) => {
        await tx.query(insert, [randomUUID(), 3]);
        await tx.query(insert, [id, 3]);
      }),
      { code: "23505" },
    );
    const fresh = randomUUID();
    assert.deepEqual(await test.db.query(insert, [fresh, 4]), [{ id: fresh }]);
  });

  it("rejects a value pg cannot send without sending the statement, and goes on", async () => {
    const select = prepared("SELECT $1::jsonb AS doc");
    assert.deepEqual(await test.db.query(select, [{ a: 1 }]), [{ doc: { a: 1 } }]);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (let run = 0; run < 35; run++) {
      await assert.rejects(test.db.query(select, [circular]), TypeError);
    }
    assert.deepEqual(await test.db.query(select, [{ b: 2 }]), [{ doc: { b: 2 } }]);
  });
});
