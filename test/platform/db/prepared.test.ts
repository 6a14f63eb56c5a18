import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { prepared, preparedName } from "../../../src/platform/db/prepared.ts";
import { createTestDatabase, NEEDS_NAMED_STATEMENTS, type TestDatabase } from "../../helpers/database.ts";

describe("prepared statements (src/platform/db/prepared.ts)", () => {
  let test: TestDatabase;
  before(async () => {
    test = await createTestDatabase();
  });
  after(() => test.db.close());

  it("answers every run for its own values, past the five after which PostgreSQL may plan it once for all", async () => {
    const doubled = prepared("SELECT $1::int * 2 AS doubled");
    for (let value = 0; value < 12; value++) {
      assert.deepEqual(await test.db.query(doubled, [value]), [{ doubled: value * 2 }]);
      assert.deepEqual(
        await test.db.transaction((tx) => tx.query(doubled, [value + 100])),
        [{ doubled: (value + 100) * 2 }],
        "in a transaction too",
      );
    }
  });

  it("names one text once, however often it is marked", () => {
    const text = "SELECT 1 AS one WHERE $1::int > 0";
    assert.equal(preparedName(text), undefined, "a one-off until marked");
    const name = preparedName(prepared(text));
    assert.match(name ?? "", /^checkout_\d+$/);
    assert.equal(preparedName(prepared(`SELECT 1 AS one WHERE ${"$1"}::int > 0`)), name);
  });

  it("is kept by the connection under its name, and a one-off statement is not", {
    skip: NEEDS_NAMED_STATEMENTS,
  }, async () => {
    const kept = prepared("SELECT count(*)::int AS n FROM payments WHERE id = $1");
    const oneOff = "SELECT count(*)::int AS n FROM payments WHERE group_id = $1";
    const statements = await test.db.transaction(async (tx) => {
      await tx.query(kept, [randomUUID()]);
      await tx.query(oneOff, [randomUUID()]);
      return tx.query<{ name: string; statement: string }>(
        "SELECT name, statement FROM pg_prepared_statements",
      );
    });
    assert.equal(statements.find((each) => each.statement === kept)?.name, preparedName(kept));
    assert.ok(!statements.some((each) => each.statement === oneOff));
  });
});
