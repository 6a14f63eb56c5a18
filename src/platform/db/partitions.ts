// Weekly time partitions (docs/operations.md, "Data lifetime"). A partitioned table holds
// `<table>_history`, everything before its first week, then one partition a week, `<table>_wYYYYMMDD`,
// from Monday 00:00 UTC. A week past its retention is dropped whole: no row-by-row delete, no
// bloat, next to nothing for the creates running meanwhile. The same statements run on PostgreSQL
// and on PGlite.
import { randomUUID } from "node:crypto";
import type { Database, Queryable } from "./database.ts";

/** The tables migration 021 partitioned, each by its time column. */
export const PARTITIONED_TABLES = [
  "webhook_events",
  "webhook_deliveries",
  "webhook_attempts",
  "processor_events",
  "audit_log",
] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;
/**
 * Weeks made ahead of the current one: an insert with no partition for its time fails, so the
 * service can stop keeping them for this long (a worker down, no instance restarted) and still take
 * writes. The runway is on /metrics (`checkout_partition_runway_seconds`) with an alert on it.
 */
export const WEEKS_AHEAD = 8;

/** Monday 00:00 UTC of `at`'s week. */
export function weekStart(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY_MS);
}

export interface Partition {
  name: string;
  /** Null for `_history`, which starts at MINVALUE. */
  lower: Date | null;
  upper: Date;
  /** Left half-detached by a DETACH ... CONCURRENTLY that did not finish (its instance stopped). */
  detaching: boolean;
}

/** A table's partitions, oldest first; the bounds are read back in SQL, whatever the session's time zone. */
export function partitionsOf(q: Queryable, table: PartitionedTable): Promise<Partition[]> {
  return q.query<Partition>(
    `SELECT name, detaching, (regexp_match(bound, 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS lower,
            (regexp_match(bound, 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS upper
     FROM (SELECT c.relname::text AS name, i.inhdetachpending AS detaching, pg_get_expr(c.relpartbound, c.oid) AS bound
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = $1::regclass) AS partitions
     ORDER BY upper`,
    [table],
  );
}

const weekName = (table: PartitionedTable, lower: Date) =>
  `${table}_w${lower.toISOString().slice(0, 10).replaceAll("-", "")}`;
const historyName = (table: PartitionedTable) => `${table}_history`;

/**
 * Makes a partition as its own table, then attaches it: ATTACH takes a lock on the partitioned
 * table that inserts and reads pass, where CREATE TABLE ... PARTITION OF would queue every write
 * behind it. Names are the constants above and dates; bounds are ISO instants made here, never
 * input. In the caller's transaction, which holds the table's partition lock.
 */
async function attachNew(tx: Queryable, table: PartitionedTable, name: string, from: Date | null, to: Date) {
  await tx.exec(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await tx.exec(
    `ALTER TABLE ${table} ATTACH PARTITION ${name}
     FOR VALUES FROM (${from ? `'${from.toISOString()}'` : "MINVALUE"}) TO ('${to.toISOString()}')`,
  );
}

/** The weeks from `from` (a Monday) until `until`, in milliseconds; how many. */
async function attachWeeks(tx: Queryable, table: PartitionedTable, from: number, until: number) {
  let made = 0;
  for (let lower = from; lower < until; lower += WEEK_MS, made++) {
    await attachNew(tx, table, weekName(table, new Date(lower)), new Date(lower), new Date(lower + WEEK_MS));
  }
  return made;
}

/** One change to a table's partitions at a time across instances. */
function changingPartitions<T>(db: Database, table: PartitionedTable, work: (tx: Queryable) => Promise<T>) {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`partitions of ${table}`]);
    return work(tx);
  });
}

/** Makes every week from the end of the last partition through WEEKS_AHEAD weeks after `now`'s; how many. */
function makeWeeksAhead(db: Database, table: PartitionedTable, now: Date): Promise<number> {
  return changingPartitions(db, table, async (tx) => {
    const last = (await partitionsOf(tx, table)).at(-1);
    if (!last) throw new Error(`${table} has no partitions`);
    const until = weekStart(now).getTime() + (WEEKS_AHEAD + 1) * WEEK_MS;
    return attachWeeks(tx, table, last.upper.getTime(), until);
  });
}

/** Every table's weeks made through WEEKS_AHEAD weeks after `now`'s; how many partitions were made. */
export async function makeWeeksDue(db: Database, now: Date): Promise<number> {
  let made = 0;
  for (const table of PARTITIONED_TABLES) made += await makeWeeksAhead(db, table, now);
  return made;
}

// The partition is no longer attached: its detach was finished by a run whose lease ran out.
const DETACHED_ELSEWHERE = "42P01";

/**
 * Detaches a partition without blocking the table's writers (CONCURRENTLY: no transaction around
 * it), then drops it. A detach left half-done by a stopped instance is finished first.
 */
async function detachAndDrop(db: Database, table: PartitionedTable, partition: Partition): Promise<void> {
  const how = partition.detaching ? "FINALIZE" : "CONCURRENTLY";
  try {
    await db.exec(`ALTER TABLE ${table} DETACH PARTITION ${partition.name} ${how}`);
  } catch (error) {
    if ((error as { code?: string }).code !== DETACHED_ELSEWHERE) throw error;
  }
  await db.exec(`DROP TABLE IF EXISTS ${partition.name}`);
}

/**
 * Longer than a detach takes even when it waits for a long report's snapshot; a lease whose holder
 * stopped runs out after it, and the next run finishes what that one left half-detached.
 */
const LEASE_SECONDS = 3600;

/**
 * Runs `work` if no other run holds the table's lease; gives null when one does. Its partitions
 * cannot tell another instance's detach in progress from one a stopped instance left.
 */
async function holdingLease<T>(
  db: Database,
  table: PartitionedTable,
  work: () => Promise<T>,
): Promise<T | null> {
  const holder = randomUUID();
  const taken = await db.query(
    `INSERT INTO partition_leases (table_name, holder, held_until)
     VALUES ($1, $2, now() + make_interval(secs => $3))
     ON CONFLICT (table_name) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until
       WHERE partition_leases.held_until <= now()
     RETURNING 1`,
    [table, holder, LEASE_SECONDS],
  );
  if (taken.length === 0) return null;
  try {
    return await work();
  } finally {
    await db.query("UPDATE partition_leases SET held_until = now() WHERE table_name = $1 AND holder = $2", [
      table,
      holder,
    ]);
  }
}

/**
 * Drops the weeks wholly before `cutoff`. `_history` ends where the first week begins, so when a
 * week goes (or `_history` itself ends by `cutoff` and holds rows) all of its rows are past the
 * cutoff too: it is dropped and made anew, empty, up to the first week left. Gives the partitions
 * dropped and where `_history` now ends: its rows before `cutoff` are the only ones left to delete
 * one by one. Null when another instance is dropping this table's weeks: it does all of that.
 */
export function dropWeeksBefore(
  db: Database,
  table: PartitionedTable,
  cutoff: Date,
): Promise<{ dropped: number; historyEnds: Date } | null> {
  return holdingLease(db, table, async () => {
    const partitions = await partitionsOf(db, table);
    for (const stuck of partitions.filter((partition) => partition.detaching))
      await detachAndDrop(db, table, stuck);
    const history = partitions.find((partition) => partition.lower === null && !partition.detaching);
    const weeks = partitions.filter((partition) => partition.lower !== null && !partition.detaching);
    const expired = weeks.filter((week) => week.upper <= cutoff);
    const historyGoes =
      history !== undefined &&
      (expired.length > 0 ||
        (history.upper <= cutoff && (await db.query(`SELECT 1 FROM ${history.name} LIMIT 1`)).length > 0));
    const doomed = [...(historyGoes ? [history] : []), ...expired];
    for (const partition of doomed) await detachAndDrop(db, table, partition);
    const historyEnds =
      weeks.find((week) => week.upper > cutoff)?.lower ??
      expired.at(-1)?.upper ??
      history?.upper ??
      weekStart(cutoff);
    if (!history || historyGoes) {
      // Between the detach and this, a write dated before every week would find no partition; the
      // service writes the present, and the weeks ahead take it.
      await changingPartitions(db, table, (tx) =>
        attachNew(tx, table, historyName(table), null, historyEnds),
      );
    }
    return { dropped: doomed.length, historyEnds };
  });
}

/**
 * Weeks back to `from`'s, while `_history` is still empty: for a database that is to receive rows
 * from the past, as a year-old installation has them in their weeks (the retention bench, tests).
 */
export function makeWeeksBack(db: Database, table: PartitionedTable, from: Date): Promise<void> {
  return changingPartitions(db, table, async (tx) => {
    const history = (await partitionsOf(tx, table)).find((partition) => partition.lower === null);
    if (!history) throw new Error(`${table} has no ${historyName(table)} partition`);
    const first = weekStart(from);
    if (first >= history.upper) return;
    if ((await tx.query(`SELECT 1 FROM ${history.name} LIMIT 1`)).length > 0) {
      throw new Error(`${history.name} holds rows: weeks can only be made back while it is empty`);
    }
    await tx.exec(`DROP TABLE ${history.name}`);
    await attachWeeks(tx, table, first.getTime(), history.upper.getTime());
    await attachNew(tx, table, historyName(table), null, first);
  });
}

/** How long until the first instant no partition of any table takes (the end of the last week made). */
export async function partitionRunway(q: Queryable, now: Date): Promise<number> {
  let end = Number.POSITIVE_INFINITY;
  for (const table of PARTITIONED_TABLES) {
    const last = (await partitionsOf(q, table)).at(-1);
    end = Math.min(end, last ? last.upper.getTime() : now.getTime());
  }
  return (end - now.getTime()) / 1000;
}
