import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Database, embeddedDatabase, postgresDatabase } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";

/** Set by .ci/run (and by anyone who wants the suite on a real server): an admin connection URL. */
export const POSTGRES_ADMIN_URL = process.env.TEST_DATABASE_URL;
export const onPostgres = Boolean(POSTGRES_ADMIN_URL);

const CACHE_DIR = join(process.cwd(), "node_modules", ".cache", "checkout-tests");

/** Names a cached migrated database: it changes with the migrations and with PGlite itself. */
async function migratedKey(): Promise<string> {
  const migrations = await loadMigrations();
  return createHash("sha256")
    .update(JSON.stringify(migrations))
    .update(PGlite.toString().length.toString())
    .digest("hex")
    .slice(0, 16);
}

/** initdb takes seconds in PGlite; a migrated image loads in well under one, so it is cached. */
async function migratedImage(): Promise<Blob> {
  const path = join(CACHE_DIR, `pglite-${await migratedKey()}.tar`);
  try {
    return new Blob([await readFile(path)]);
  } catch {
    const pglite = await PGlite.create();
    await migrate(embeddedDatabase(pglite));
    const image = await pglite.dumpDataDir("none");
    await pglite.close();
    await mkdir(CACHE_DIR, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, Buffer.from(await image.arrayBuffer()));
    await rename(temporary, path);
    return image;
  }
}

/**
 * A new DATA_DIR whose embedded database is already initialised and migrated: a copy of a template
 * made once per set of migrations, because initdb and the migrations cost a process seconds of CPU
 * at every fresh start. Tests of a first start on an empty directory use mkdtemp instead.
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const template = join(CACHE_DIR, `pglite-dir-${await migratedKey()}`);
  try {
    await readFile(join(template, "PG_VERSION"));
  } catch {
    await mkdir(CACHE_DIR, { recursive: true });
    const building = await mkdtemp(`${template}.building-`);
    const pglite = await PGlite.create(building);
    await migrate(embeddedDatabase(pglite));
    await pglite.close();
    // Another test file may have built it meanwhile: either copy is the same.
    await rename(building, template).catch(() => rm(building, { recursive: true, force: true }));
  }
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  await cp(template, join(dataDir, "pglite"), { recursive: true });
  return dataDir;
}

export interface TestDatabase {
  db: Database;
  /** Connection URL of the fresh PostgreSQL database, when on PostgreSQL. */
  url?: string;
}

/** A fresh, migrated database nobody else uses; closing it drops it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!POSTGRES_ADMIN_URL) {
    const pglite = await PGlite.create({ loadDataDir: await migratedImage() });
    return { db: embeddedDatabase(pglite) };
  }
  const name = `checkout_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const inner = postgresDatabase(url.toString(), { max: 30 });
  await migrate(inner);
  const db: Database = {
    ...inner,
    async close() {
      await inner.close();
      const cleanup = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
  return { db, url: url.toString() };
}
