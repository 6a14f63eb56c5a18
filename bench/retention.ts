// npm run bench -- --retention [--quick]
// What pruning costs at a year's size: 10,000,000 webhook attempts and 2,000,000 events (each with
// its delivery and processor event) past EVENT_RETENTION_DAYS, and 200,000 audit entries past
// AUDIT_RETENTION_DAYS, in the weeks a year-old installation keeps them in, pruned in three
// retention cycles by the service's own pruners (each cycle's clock a week later, so each finds
// about a week of the backlog due) while creates run at a steady rate and 2,000 new events a minute
// arrive. Prints the rows pruned per second, the create's p99 with and without pruning running, and
// each pruned table's size on disk (with its indexes) after each cycle.
import { Pool } from "undici";
import { type Database, postgresDatabase } from "../src/platform/db/database.ts";
import { migrate } from "../src/platform/db/migrate.ts";
import { makeWeeksBack, makeWeeksDue, PARTITIONED_TABLES, WEEK_MS } from "../src/platform/db/partitions.ts";
import { pruneAll, pruners } from "../src/privacy/pruning.ts";
import {
  createBody,
  createPayments,
  formatTable,
  freshDatabase,
  outcome,
  QUICK,
  type Service,
  startProcessorStub,
  startService,
} from "./kit.ts";

const EVENTS = QUICK ? 200_000 : 2_000_000;
const ATTEMPTS_PER_EVENT = 5;
const AUDIT_ENTRIES = EVENTS / 10;
const SEED_BATCH = 100_000;
const INTAKE_PER_MINUTE = 2_000;
/** The creates' steady rate, well under what the service takes: the p99 is of a service at work, not saturated. */
const CREATE_RATE = 100;
const CREATE_CONNECTIONS = 8;
/**
 * Each quiet window (before the first cycle and after each), and each pruning window: from a
 * cycle's start, for as long as it runs and at least this long, so what a drop leaves behind
 * (a checkpoint, a cache refilled) counts as pruning too.
 */
const WINDOW_S = QUICK ? 8 : 30;
const WARMUP_S = 10;
const CYCLES = 3;
const DAY_MS = 86_400_000;
const EVENT_RETENTION_DAYS = 90;
const AUDIT_RETENTION_DAYS = 400;
const PRUNED_TABLES = [
  "webhook_events",
  "webhook_deliveries",
  "webhook_attempts",
  "processor_events",
  "audit_log",
];

const log = (line: string) => process.stderr.write(`  ${line}\n`);

/**
 * Ages past the retention by up to three weeks, spread over them, from one instant for every
 * statement (a delivery carries its event's time to the microsecond).
 */
const agePast = (base: Date, retentionDays: number) =>
  `'${base.toISOString()}'::timestamptz - interval '${retentionDays} days' - make_interval(days => 7 * (n % 3), secs => n % 604800)`;

async function seed(db: Database, groupId: string, paymentId: string, base: Date): Promise<void> {
  const started = performance.now();
  const createdOf = agePast(base, EVENT_RETENTION_DAYS);
  for (let first = 1; first <= EVENTS; first += SEED_BATCH) {
    const range = [first, Math.min(first + SEED_BATCH - 1, EVENTS)];
    await db.query(
      `INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
       SELECT md5('e' || n)::uuid, $3, $4, 'payment.completed', 'succeeded',
         json_build_object('event', 'payment.completed', 'transactionId', $3::uuid), ${createdOf}
       FROM generate_series($1::int, $2::int) AS n`,
      [...range, paymentId, groupId],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, attempts, sent_timestamp,
         last_status_code, created_at, completed_at)
       SELECT md5('d' || n)::uuid, md5('e' || n)::uuid, ${createdOf}, 'https://hooks.example.com/h', 'hooks.example.com:443',
         'succeeded', ${ATTEMPTS_PER_EVENT}, '0', 200, ${createdOf}, ${createdOf}
       FROM generate_series($1::int, $2::int) AS n`,
      range,
    );
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
       SELECT md5('d' || n)::uuid, k, ${createdOf} + make_interval(secs => k), CASE WHEN k < ${ATTEMPTS_PER_EVENT} THEN 500 ELSE 200 END, 12
       FROM generate_series($1::int, $2::int) AS n, generate_series(1, ${ATTEMPTS_PER_EVENT}) AS k`,
      range,
    );
    await db.query(
      `INSERT INTO processor_events (processor, id, type, payment_id, received_at)
       SELECT 'stripe', 'evt_seed_' || n, 'checkout.session.completed', $3, ${createdOf}
       FROM generate_series($1::int, $2::int) AS n`,
      [...range, paymentId],
    );
    log(`seeded ${range[1]?.toLocaleString("en-US")} events`);
  }
  await db.query(
    `INSERT INTO audit_log (group_id, actor, action, target, created_at)
     SELECT $2, 'admin-token', 'payment.refunded', md5('p' || n), ${agePast(base, AUDIT_RETENTION_DAYS)}
     FROM generate_series(1, $1::int) AS n`,
    [AUDIT_ENTRIES, groupId],
  );
  // Written out now: the seeding's dirty pages would otherwise be flushed by a timed checkpoint
  // in the middle of whichever window it fell in.
  await db.exec("VACUUM ANALYZE");
  await db.exec("CHECKPOINT");
  log(`seeding took ${Math.round((performance.now() - started) / 1000)} s`);
}

/** 2,000 events a minute, as the service writes them: the event, its delivery, its attempt, the processor's event. */
function startIntake(db: Database, groupId: string, paymentId: string) {
  let arrived = 0;
  const timer = setInterval(() => {
    arrived++;
    db.query(
      `WITH event AS (
         INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload)
         VALUES (gen_random_uuid(), $1, $2, 'payment.completed', 'succeeded', json_build_object('transactionId', $1::uuid))
         RETURNING id, created_at
       ), delivery AS (
         INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, attempts, completed_at)
         SELECT gen_random_uuid(), id, created_at, 'https://hooks.example.com/h', 'hooks.example.com:443', 'succeeded', 1, now() FROM event
         RETURNING id
       ), attempt AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
         SELECT id, 1, now(), 200, 12 FROM delivery
       )
       INSERT INTO processor_events (processor, id, type, payment_id) VALUES ('stripe', 'evt_' || gen_random_uuid(), 'checkout.session.completed', $1)`,
      [paymentId, groupId],
    ).catch((error: Error) => {
      outcome.failed = true;
      log(`intake failed: ${error.message}`);
    });
  }, 60_000 / INTAKE_PER_MINUTE);
  return {
    stop: () => {
      clearInterval(timer);
      return arrived;
    },
  };
}

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}

/**
 * Creates at CREATE_RATE a second, each timed on its own, until stopped: the p99 of any window of
 * the run (quiet or pruning) is read from the same stream, so the two are measured alike.
 */
function startSteadyCreates(service: Service) {
  const pool = new Pool(service.url, { connections: CREATE_CONNECTIONS });
  const samples: Sample[] = [];
  const headers = { ...service.keys, "content-type": "application/json" };
  const timer = setInterval(() => {
    const at = performance.now();
    pool
      .request({ path: "/api/v1/payments/create", method: "POST", headers, body: createBody })
      .then(async (response) => {
        await response.body.dump();
        samples.push({ at, ms: performance.now() - at, ok: response.statusCode === 200 });
      })
      .catch(() => samples.push({ at, ms: performance.now() - at, ok: false }));
  }, 1000 / CREATE_RATE);
  return {
    samples,
    async stop() {
      clearInterval(timer);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await pool.close();
    },
  };
}

interface Window {
  from: number;
  to: number;
}

/** The p99 (ms, to a tenth) and the failures of the creates started within the windows. */
function latencyIn(samples: readonly Sample[], windows: readonly Window[]) {
  const inside = samples.filter((sample) => windows.some((w) => sample.at >= w.from && sample.at < w.to));
  const sorted = inside.map((sample) => sample.ms).sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return {
    p99: Math.round(p99 * 10) / 10,
    creates: inside.length,
    failed: inside.filter((s) => !s.ok).length,
  };
}

/** Waits until `seconds` after `from` and gives the window from `from` to then. */
async function windowFrom(from: number, seconds: number): Promise<Window> {
  const left = from + seconds * 1000 - performance.now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  return { from, to: performance.now() };
}

const quietWindow = (seconds: number) => windowFrom(performance.now(), seconds);

/**
 * The rows of each partition, counted once after seeding: a cycle's pruned rows are those of the
 * partitions it dropped, with no scan during the run (a count of every table each cycle read the
 * whole backlog through the buffer cache, and the creates paid for it).
 */
async function rowsByPartition(db: Database): Promise<Map<string, number>> {
  const rows = new Map<string, number>();
  for (const table of PRUNED_TABLES) {
    const counted = await db.query<{ name: string; n: string }>(
      `SELECT tableoid::regclass::text AS name, count(*)::text AS n FROM ${table} GROUP BY tableoid`,
    );
    for (const row of counted) rows.set(row.name, Number(row.n));
  }
  return rows;
}

async function partitionNames(db: Database): Promise<Set<string>> {
  const rows = await db.query<{ name: string }>(
    "SELECT relid::regclass::text AS name FROM unnest($1::text[]) AS t, pg_partition_tree(t::regclass) WHERE isleaf",
    [PRUNED_TABLES],
  );
  return new Set(rows.map((row) => row.name));
}

/** Each table's size with its indexes, over all of its partitions. */
async function sizes(db: Database): Promise<Record<string, number>> {
  const rows = await db.query<{ name: string; bytes: string }>(
    `SELECT t AS name, sum(pg_total_relation_size(relid))::text AS bytes
     FROM unnest($1::text[]) AS t, pg_partition_tree(t::regclass) GROUP BY t`,
    [PRUNED_TABLES],
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function retentionRun(): Promise<void> {
  const database = await freshDatabase();
  // Seeding inserts half a million attempts a statement, and VACUUM ANALYZE reads them all.
  const db = postgresDatabase(database.url, { max: 4, statementTimeoutMs: 30 * 60_000 });
  try {
    // The weeks a year-old installation has, made while the tables are still empty.
    const base = new Date();
    await migrate(db, base);
    for (const table of PARTITIONED_TABLES) {
      await makeWeeksBack(db, table, new Date(base.getTime() - (AUDIT_RETENTION_DAYS + 28) * DAY_MS));
    }
    const stub = await startProcessorStub();
    const service = await startService({ DATABASE_URL: database.url }, stub);
    const [payment] = await createPayments(service, 1);
    if (!payment) throw new Error("no payment for the events to name");
    process.stderr.write(
      `seeding ${EVENTS.toLocaleString("en-US")} events, deliveries and processor events, ` +
        `${(EVENTS * ATTEMPTS_PER_EVENT).toLocaleString("en-US")} attempts and ` +
        `${AUDIT_ENTRIES.toLocaleString("en-US")} audit entries past their retention\n`,
    );
    await seed(db, service.groupId, payment.id, base);
    const seededSizes = await sizes(db);
    const seeded = await rowsByPartition(db);
    const intake = startIntake(db, service.groupId, payment.id);
    const list = pruners({
      webhookAttemptRetentionDays: EVENT_RETENTION_DAYS,
      eventRetentionDays: EVENT_RETENTION_DAYS,
      auditRetentionDays: AUDIT_RETENTION_DAYS,
    });
    const creates = startSteadyCreates(service);
    process.stderr.write(`creates at ${CREATE_RATE}/s: warming up, then quiet and pruning windows in turn\n`);
    await quietWindow(WARMUP_S);
    const quiet: Window[] = [await quietWindow(WINDOW_S)];
    const cycles: { pruned: number; seconds: number; window: Window; sizes: Record<string, number> }[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const clock = new Date(base.getTime() + (cycle - 1) * WEEK_MS);
      // The hourly run makes the weeks ahead first, as it would have by then.
      await makeWeeksDue(db, clock);
      const partitionsBefore = await partitionNames(db);
      const from = performance.now();
      const batched = await pruneAll(db, list, clock);
      const seconds = (performance.now() - from) / 1000;
      const window = await windowFrom(from, WINDOW_S);
      const left = await partitionNames(db);
      let pruned = Object.entries(batched)
        .filter(([name]) => !name.endsWith("weeks dropped"))
        .reduce((sum, [, n]) => sum + n, 0);
      for (const name of partitionsBefore) if (!left.has(name)) pruned += seeded.get(name) ?? 0;
      cycles.push({ pruned, seconds, window, sizes: await sizes(db) });
      log(
        `cycle ${cycle}: ${pruned.toLocaleString("en-US")} rows in ${seconds.toFixed(2)} s; create p99 ${latencyIn(creates.samples, [window]).p99} ms`,
      );
      quiet.push(await quietWindow(WINDOW_S));
    }
    await creates.stop();
    const arrived = intake.stop();
    const calm = latencyIn(creates.samples, quiet);
    const pruning = latencyIn(
      creates.samples,
      cycles.map((cycle) => cycle.window),
    );
    if (calm.failed + pruning.failed > 0) outcome.failed = true;

    const rows = [["measure", "value", "target"]];
    const totalPruned = cycles.reduce((sum, cycle) => sum + cycle.pruned, 0);
    const totalSeconds = cycles.reduce((sum, cycle) => sum + cycle.seconds, 0);
    rows.push(["rows pruned per second", Math.round(totalPruned / totalSeconds).toLocaleString("en-US"), ""]);
    rows.push([
      "events arrived meanwhile",
      `${arrived.toLocaleString("en-US")} (${INTAKE_PER_MINUTE.toLocaleString("en-US")}/min)`,
      "",
    ]);
    const rise = pruning.p99 / calm.p99 - 1;
    rows.push([
      "create p99: no pruning → pruning",
      `${calm.p99} → ${pruning.p99} ms (${rise >= 0 ? "+" : ""}${Math.round(rise * 100)} %; ${calm.creates} and ${pruning.creates} creates, ${calm.failed + pruning.failed} failed)`,
      `${rise <= 0.1 ? "met" : "MISSED"}: at most +10 %`,
    ]);
    for (const table of PRUNED_TABLES) {
      // Flat: no cycle leaves the table more than 10 % bigger than the first did (a dropped week
      // gives its space back, so the size falls as the backlog goes).
      const first = cycles[0]?.sizes[table] ?? 0;
      const worst = Math.max(...cycles.map((cycle) => (cycle.sizes[table] ?? 0) / first - 1));
      rows.push([
        `${table} (with indexes): seeded → after each cycle`,
        `${mb(seededSizes[table] ?? 0)} → ${cycles.map((cycle) => mb(cycle.sizes[table] ?? 0)).join(" → ")}`,
        `${worst <= 0.1 ? "met" : "MISSED"}: at most 10 % above the first cycle's`,
      ]);
    }
    for (const [index, cycle] of cycles.entries()) {
      rows.push([
        `cycle ${index + 1}`,
        `${cycle.pruned.toLocaleString("en-US")} rows in ${cycle.seconds.toFixed(2)} s, create p99 ${latencyIn(creates.samples, [cycle.window]).p99} ms`,
        "",
      ]);
    }
    process.stdout.write(`\n${formatTable(rows)}\n`);
    process.stdout.write(
      `\nweekly partitions dropped whole, as the service's worker does; creates at ${CREATE_RATE}/s on ${CREATE_CONNECTIONS} connections, ` +
        `p99 over ${CYCLES + 1} quiet windows of ${WINDOW_S} s against the ${WINDOW_S} s from each of the ${CYCLES} cycles' start; ` +
        `${new Date().toISOString()}${QUICK ? " (--quick)" : ""}\n`,
    );
  } finally {
    await db.close();
    await database.drop().catch(() => {});
  }
}
