// npm run bench -- --retention [--quick]
// What pruning costs at a year's size: 10,000,000 webhook attempts and 2,000,000 events (each with
// its delivery and processor event) past EVENT_RETENTION_DAYS, and 200,000 audit entries past
// AUDIT_RETENTION_DAYS, pruned in three retention cycles by the service's own pruners (each cycle's
// clock a day later, so each takes a third of the backlog) while creates run at a steady rate and
// 2,000 new events a minute arrive. Prints the rows pruned per second, the create's p99 with and
// without pruning running, and each pruned table's size on disk (with its indexes) after each cycle.
import { Pool } from "undici";
import { type Database, postgresDatabase } from "../src/db/database.ts";
import { pruneAll, pruners } from "../src/retention/pruning.ts";
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
/** Each quiet window: before the first cycle and after each. */
const QUIET_S = QUICK ? 8 : 30;
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
 * Ages past the retention by `n % 3` whole days and up to 22 hours more: the cycle whose clock is
 * `2 - (n % 3)` days before now finds that third past its retention, and no other third.
 */
const agePast = (retentionDays: number) =>
  `now() - interval '${retentionDays} days' - make_interval(days => n % 3, secs => 3600 + n % 79200)`;

async function seed(db: Database, groupId: string, paymentId: string): Promise<void> {
  const started = performance.now();
  const createdOf = agePast(EVENT_RETENTION_DAYS);
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
      `INSERT INTO webhook_deliveries (id, event_id, url, destination, state, attempts, sent_timestamp,
         last_status_code, created_at, completed_at)
       SELECT md5('d' || n)::uuid, md5('e' || n)::uuid, 'https://hooks.example.com/h', 'hooks.example.com:443',
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
     SELECT $2, 'admin-token', 'payment.refunded', md5('p' || n), ${agePast(AUDIT_RETENTION_DAYS)}
     FROM generate_series(1, $1::int) AS n`,
    [AUDIT_ENTRIES, groupId],
  );
  await db.exec("VACUUM ANALYZE");
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
         RETURNING id
       ), delivery AS (
         INSERT INTO webhook_deliveries (id, event_id, url, destination, state, attempts, completed_at)
         SELECT gen_random_uuid(), id, 'https://hooks.example.com/h', 'hooks.example.com:443', 'succeeded', 1, now() FROM event
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

/** Waits `seconds` and gives the window it waited. */
async function quietWindow(seconds: number): Promise<Window> {
  const from = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return { from, to: performance.now() };
}

async function rowCount(db: Database): Promise<number> {
  let total = 0;
  for (const table of PRUNED_TABLES) {
    const [row] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
    total += Number(row?.n ?? 0);
  }
  return total;
}

async function sizes(db: Database): Promise<Record<string, number>> {
  const rows = await db.query<{ name: string; bytes: string }>(
    "SELECT name, pg_total_relation_size(name::regclass)::text AS bytes FROM unnest($1::text[]) AS name",
    [PRUNED_TABLES],
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function retentionRun(): Promise<void> {
  const database = await freshDatabase();
  const db = postgresDatabase(database.url, { max: 4 });
  try {
    const stub = await startProcessorStub();
    const service = await startService({ DATABASE_URL: database.url }, stub);
    const [payment] = await createPayments(service, 1);
    if (!payment) throw new Error("no payment for the events to name");
    process.stderr.write(
      `seeding ${EVENTS.toLocaleString("en-US")} events, deliveries and processor events, ` +
        `${(EVENTS * ATTEMPTS_PER_EVENT).toLocaleString("en-US")} attempts and ` +
        `${AUDIT_ENTRIES.toLocaleString("en-US")} audit entries past their retention\n`,
    );
    await seed(db, service.groupId, payment.id);
    const seeded = await sizes(db);
    const intake = startIntake(db, service.groupId, payment.id);
    const list = pruners({
      webhookAttemptRetentionDays: EVENT_RETENTION_DAYS,
      eventRetentionDays: EVENT_RETENTION_DAYS,
      auditRetentionDays: AUDIT_RETENTION_DAYS,
    });
    const creates = startSteadyCreates(service);
    process.stderr.write(`creates at ${CREATE_RATE}/s: warming up, then quiet and pruning windows in turn\n`);
    await quietWindow(WARMUP_S);
    const quiet: Window[] = [await quietWindow(QUIET_S)];
    const cycles: { pruned: number; seconds: number; window: Window; sizes: Record<string, number> }[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const clock = new Date(Date.now() - (CYCLES - cycle) * DAY_MS);
      const rowsBefore = await rowCount(db);
      const from = performance.now();
      await pruneAll(db, list, clock);
      const window = { from, to: performance.now() };
      const pruned = rowsBefore - (await rowCount(db));
      const seconds = (window.to - window.from) / 1000;
      cycles.push({ pruned, seconds, window, sizes: await sizes(db) });
      log(
        `cycle ${cycle}: ${pruned.toLocaleString("en-US")} rows in ${seconds.toFixed(0)} s; create p99 ${latencyIn(creates.samples, [window]).p99} ms`,
      );
      quiet.push(await quietWindow(QUIET_S));
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
      const first = cycles[0]?.sizes[table] ?? 0;
      const worst = Math.max(...cycles.map((cycle) => Math.abs((cycle.sizes[table] ?? 0) / first - 1)));
      rows.push([
        `${table} (with indexes): seeded → after each cycle`,
        `${mb(seeded[table] ?? 0)} → ${cycles.map((cycle) => mb(cycle.sizes[table] ?? 0)).join(" → ")}`,
        `${worst <= 0.1 ? "met" : "MISSED"}: within 10 % of the first cycle's`,
      ]);
    }
    for (const [index, cycle] of cycles.entries()) {
      rows.push([
        `cycle ${index + 1}`,
        `${cycle.pruned.toLocaleString("en-US")} rows in ${cycle.seconds.toFixed(0)} s, create p99 ${latencyIn(creates.samples, [cycle.window]).p99} ms`,
        "",
      ]);
    }
    process.stdout.write(`\n${formatTable(rows)}\n`);
    process.stdout.write(
      `\nbatched deletes, as the service's worker makes them; creates at ${CREATE_RATE}/s on ${CREATE_CONNECTIONS} connections, ` +
        `p99 over ${CYCLES + 1} quiet windows of ${QUIET_S} s against the ${CYCLES} cycles; ` +
        `${new Date().toISOString()}${QUICK ? " (--quick)" : ""}\n`,
    );
  } finally {
    await db.close();
    await database.drop().catch(() => {});
  }
}
