// docs/operations.md's "Data lifetime" names every table of the schema, and only those.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { createTestDatabase } from "../helpers/database.ts";

describe("docs/operations.md accounts for every table", () => {
  it("lists each table of the migrated schema with what bounds it", async () => {
    const doc = await readFile("docs/operations.md", "utf8");
    const section = doc.slice(doc.indexOf("## Data lifetime"));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)];
    const { db } = await createTestDatabase();
    try {
      const tables = await db.query<{ name: string }>(
        // A partitioned table stands for its weeks.
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
           AND table_name NOT IN (SELECT relname::text FROM pg_class WHERE relispartition)`,
      );
      assert.deepEqual(documented.map((match) => match[1]).sort(), tables.map((table) => table.name).sort());
      for (const match of documented) {
        assert.match(
          match[2] ?? "",
          /RETENTION_DAYS|own expiry|bookkeeping|configuration|with their/,
          match[1],
        );
      }
    } finally {
      await db.close();
    }
  });
});
