// The migrated schema, written out and compared with test/schema.snapshot.txt, so any change to a
// migration shows up in review as a change to that file. UPDATE_SCHEMA_SNAPSHOT=1 rewrites it.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { describe, it } from "node:test";
import type { Queryable } from "../src/platform/db/database.ts";
import { createTestDatabase } from "./helpers/database.ts";

// The suite runs from the repository root (and from compiled copies of the tests).
const SNAPSHOT = "test/schema.snapshot.txt";

// A partitioned table's partitions (its weeks, named by their dates) are its own copies: the table
// stands for them, with its partition key.
const NOT_A_PARTITION = "NOT IN (SELECT relname::text FROM pg_class WHERE relispartition)";

async function describeSchema(db: Queryable): Promise<string> {
  const columns = await db.query<{ line: string }>(
    `SELECT format('%s.%s %s%s%s', table_name, column_name, data_type,
              CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END,
              CASE WHEN column_default IS NOT NULL THEN ' default ' || column_default ELSE '' END) AS line
     FROM information_schema.columns WHERE table_schema = 'public' AND table_name ${NOT_A_PARTITION}
     ORDER BY table_name, ordinal_position`,
  );
  const constraints = await db.query<{ line: string }>(
    `SELECT format('%s %s: %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS line
     FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n' -- NOT NULL: listed with the columns
       AND conrelid::regclass::text ${NOT_A_PARTITION}
     ORDER BY conrelid::regclass::text, conname`,
  );
  const indexes = await db.query<{ line: string }>(
    `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public' AND tablename ${NOT_A_PARTITION}
     ORDER BY tablename, indexname`,
  );
  const partitioned = await db.query<{ line: string }>(
    `SELECT format('%s %s', relname, pg_get_partkeydef(oid)) AS line FROM pg_class
     WHERE relkind = 'p' AND relnamespace = 'public'::regnamespace ORDER BY relname`,
  );
  const triggers = await db.query<{ line: string }>(
    `SELECT format('%s %s: %s %s %s', event_object_table, trigger_name, action_timing,
              string_agg(event_manipulation, ' OR ' ORDER BY event_manipulation), action_statement) AS line
     FROM information_schema.triggers WHERE trigger_schema = 'public'
     GROUP BY event_object_table, trigger_name, action_timing, action_statement
     ORDER BY event_object_table, trigger_name`,
  );
  return [
    "-- columns",
    ...columns.map((row) => row.line),
    "",
    "-- constraints",
    ...constraints.map((row) => row.line),
    "",
    "-- indexes",
    ...indexes.map((row) => row.line),
    "",
    "-- triggers",
    ...triggers.map((row) => row.line),
    "",
    "-- partitioned tables",
    ...partitioned.map((row) => row.line),
    "",
  ].join("\n");
}

describe("database schema", () => {
  it("matches the reviewed snapshot after every migration", async () => {
    const { db } = await createTestDatabase();
    try {
      const actual = await describeSchema(db);
      if (process.env.UPDATE_SCHEMA_SNAPSHOT === "1") await writeFile(SNAPSHOT, actual);
      const expected = await readFile(SNAPSHOT, "utf8").catch(() => "(no snapshot yet)");
      assert.equal(
        actual,
        expected,
        "the schema changed: review it, then run UPDATE_SCHEMA_SNAPSHOT=1 npm test -- test/schema",
      );
    } finally {
      await db.close();
    }
  });
});
