import { createHash, randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Database, type PostgresOptions, postgresDatabase } from "../../src/platform/db/database.ts";
import { embeddedDatabase } from "../../src/platform/db/embedded-statements.ts";
import { loadMigrations, migrate } from "../../src/platform/db/migrate.ts";
import { weekStart } from "../../src/platform/db/partitions.ts";
import { withReadReplica } from "../../src/platform/db/read-replica.ts";

/** Set by .ci/run (and by anyone who wants the suite on a real server): an admin connection URL. */
export const POSTGRES_ADMIN_URL = process.env.TEST_DATABASE_URL;
export const onPostgres = Boolean(POSTGRES_ADMIN_URL);

/** Why a test that needs a PostgreSQL server is skipped, with what runs it. */
export const NEEDS_POSTGRES =
  "needs a PostgreSQL server: install it (Debian: apt-get install postgresql) and run with " +
  "TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm test (.ci/run does)";

/**
 * `transaction` when TEST_DATABASE_URL is a transaction pooler (PgBouncer, as .ci/run starts one):
 * the service then runs with DATABASE_POOL_MODE=transaction, and LISTENs on the server directly
 * (TEST_DATABASE_DIRECT_URL, which also creates and drops the tests' databases).
 */
export const throughPooler = process.env.TEST_DATABASE_POOL_MODE === "transaction";
const DIRECT_ADMIN_URL = process.env.TEST_DATABASE_DIRECT_URL ?? POSTGRES_ADMIN_URL;

/** Why a test of named prepared statements is skipped: they need a server, and no pooler between. */
export const NEEDS_NAMED_STATEMENTS =
  (!onPostgres && NEEDS_POSTGRES) ||
  (throughPooler && "named statements are off behind a transaction pooler (the direct run covers them)");

/**
 * A streaming replica of TEST_DATABASE_URL's server (.ci/run makes one with pg_basebackup -R):
 * each test database then reads what may lag from it, as DATABASE_READ_URL makes the service do.
 */
export const REPLICA_ADMIN_URL = process.env.TEST_DATABASE_READ_URL;
const READ_MAX_LAG_MS = 5000;

/** The same database on the replica's server. */
export const replicaUrlOf = (url: string): string | undefined => {
  if (!REPLICA_ADMIN_URL) return undefined;
  const replica = new URL(REPLICA_ADMIN_URL);
  replica.pathname = new URL(url).pathname;
  return replica.toString();
};

/** The same database, by the direct URL: where a test's LISTEN goes behind a pooler. */
export const directUrlOf = (url: string): string | undefined => {
  if (!DIRECT_ADMIN_URL) return undefined;
  const direct = new URL(DIRECT_ADMIN_URL);
  direct.pathname = new URL(url).pathname;
  return direct.toString();
};

/** A pool on a test's PostgreSQL database, in the pool mode the suite runs in. */
export function openTestPostgres(url: string, options: PostgresOptions = {}): Database {
  return postgresDatabase(url, {
    ...options,
    ...(throughPooler && { poolMode: "transaction", listenUrl: directUrlOf(url) }),
  });
}

const CACHE_DIR = join(process.cwd(), "node_modules", ".cache", "checkout-tests");

const TEMPLATE_SETTINGS = "\nshared_buffers = 16MB\n";

/** Names the cached template: it changes with the migrations, PGlite, the template's settings and the week. */
async function migratedKey(): Promise<string> {
  const migrations = await loadMigrations();
  return (
    createHash("sha256")
      .update(JSON.stringify(migrations))
      .update(PGlite.toString().length.toString())
      .update(TEMPLATE_SETTINGS)
      // Its weekly partitions run WEEKS_AHEAD weeks from the week it was made in.
      .update(weekStart(new Date()).toISOString())
      .digest("hex")
      .slice(0, 16)
  );
}

/**
 * Where test data directories go: a RAM-backed tmpfs when the machine has one. PGlite writes its
 * files as it works, and a test's database is thrown away at the end.
 */
const SCRATCH_DIR = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

/** The data directories this process made: any a failed test left behind go when it exits. */
const scratchDirs = new Set<string>();
process.once("exit", () => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * An initialised, migrated data directory, built once per set of migrations: initdb and the
 * migrations cost a process seconds of CPU at every fresh start. Its buffer pool is the one setting
 * tests change: their databases hold a few hundred rows, and PostgreSQL's default 128 MB pool cost
 * each start about 0.4 s of page faults on this VM (the service's own default stays).
 */
async function migratedTemplate(): Promise<string> {
  const template = join(CACHE_DIR, `pglite-dir-${await migratedKey()}`);
  try {
    await readFile(join(template, "PG_VERSION"));
  } catch {
    await mkdir(CACHE_DIR, { recursive: true });
    const building = await mkdtemp(`${template}.building-`);
    const pglite = await PGlite.create(building);
    await migrate(embeddedDatabase(pglite));
    await pglite.close();
    await appendFile(join(building, "postgresql.conf"), TEMPLATE_SETTINGS);
    // Another test file may have built it meanwhile: either copy is the same.
    await rename(building, template).catch(() => rm(building, { recursive: true, force: true }));
  }
  return template;
}

/**
 * A new DATA_DIR whose embedded database is already initialised and migrated, as the service
 * finds it at its second start. Tests of a first start on an empty directory use mkdtemp instead.
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const template = await migratedTemplate();
  const dataDir = await mkdtemp(join(SCRATCH_DIR, prefix));
  scratchDirs.add(dataDir);
  await copyTree(template, join(dataDir, "pglite"));
  return dataDir;
}

/**
 * Copies a directory of plain files and directories (a data directory's 1,100 files), all at
 * once. fs.cp checked, stat'ed and chmod'ed each file in turn: 0.45 s and 0.55 s of CPU a copy
 * here, against 0.05 s and 0.15 s.
 */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to);
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? copyTree(join(from, entry.name), join(to, entry.name))
        : copyFile(join(from, entry.name), join(to, entry.name)),
    ),
  );
}

export interface TestDatabase {
  db: Database;
  /** Connection URL of the fresh PostgreSQL database, when on PostgreSQL. */
  url?: string;
}

/**
 * The service's replica routing, for the suite's tests that read right after they wrote (a list
 * after its creates): each lagging read first waits, up to five seconds, for the replica to replay
 * what the primary has written, as a user's next click usually finds it (a second was not always
 * enough with CI's stages running test files side by side on two cores). What a replica that lags
 * or is down does is tested as it is, in test/platform/db/read-replica.test.ts, which pauses the replay and
 * so runs on its own.
 */
function caughtUpReads(primary: Database, replicaUrl: string): Database {
  const replica = openTestPostgres(replicaUrl, { max: 30 });
  const routed = withReadReplica(primary, replica, READ_MAX_LAG_MS);
  const caughtUp = async () => {
    const [written] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const [state] = await replica
        .query<{ replayed: boolean }>(
          // A replay a test paused is the lag it studies: its reads go as the service sends them.
          "SELECT pg_is_wal_replay_paused() OR pg_last_wal_replay_lsn() >= $1::pg_lsn AS replayed",
          [written?.lsn],
        )
        .catch(() => [{ replayed: true }]);
      if (state?.replayed) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("the replica did not replay the primary's writes within 5 s: is its replay paused?");
  };
  return {
    ...routed,
    reads: {
      async query<Row>(sql: string, params?: unknown[]) {
        await caughtUp();
        return routed.reads.query<Row>(sql, params);
      },
      exec: routed.reads.exec,
    },
  };
}

/**
 * A fresh database nobody else uses; closing it drops it. Migrated, unless `empty` (for the tests
 * of a migration itself, which apply the ones before it by hand).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (!POSTGRES_ADMIN_URL) {
    if (options.empty) return { db: embeddedDatabase(await PGlite.create()) };
    // Opened from a copy of the template's files, as the service opens its own: with the small
    // pool, a third of the time it took to load a tarball of them into memory (41 MB unpacked and
    // copied three times over).
    const dataDir = await migratedDataDir("checkout-test-");
    const pglite = await PGlite.create(join(dataDir, "pglite"));
    return { db: embeddedDatabase(pglite, () => rm(dataDir, { recursive: true, force: true })) };
  }
  const name = `checkout_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DIRECT_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const primary = openTestPostgres(url.toString(), { max: 30 });
  const replicaUrl = replicaUrlOf(url.toString());
  const inner = replicaUrl ? caughtUpReads(primary, replicaUrl) : primary;
  if (!options.empty) await migrate(inner);
  const db: Database = {
    ...inner,
    async close() {
      await inner.close();
      const cleanup = new pg.Client({ connectionString: DIRECT_ADMIN_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
  return { db, url: url.toString() };
}
