import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.ts";
import { makeWeeksDue } from "./partitions.ts";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));
// Any constant works; it only has to be the same for every instance migrating one database.
const MIGRATION_LOCK_KEY = 7_302_114;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((file) => /^\d+_.+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: Number(file.split("_")[0]),
      name: file,
      sql: await readFile(MIGRATIONS_DIR + file, "utf8"),
    })),
  );
}

/**
 * Applies pending migrations in one transaction (instances starting together wait on one lock),
 * then makes the weekly partitions due by now: every start leaves WEEKS_AHEAD weeks of them.
 */
export async function migrate(db: Database, now = new Date()): Promise<string[]> {
  const applied = await applyMigrations(db);
  await makeWeeksDue(db, now);
  return applied;
}

/** The pending migrations up to version `through` (all of them by default), without the partitions. */
export async function applyMigrations(db: Database, through = Number.POSITIVE_INFINITY): Promise<string[]> {
  const migrations = (await loadMigrations()).filter((migration) => migration.version <= through);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set(
      (await tx.query<{ version: number }>("SELECT version FROM schema_migrations")).map(
        (row) => row.version,
      ),
    );
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.name);
    }
    return newlyApplied;
  });
}
