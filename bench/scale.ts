// npm run bench -- --scale [--quick]
// Cost as the work grows: the same paths on an empty database and on one seeded with 1,000,000
// payments across 1,000 groups and 2,000,000 webhook events (each with its delivery and attempt).
// Both services run side by side and are measured in turn, two rounds, best of each, so the
// VM's drift from minute to minute falls on both alike. Ends with EXPLAIN ANALYZE of every path's
// statement on the seeded database, taken from the service's own store functions.
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { findPaymentResource } from "../src/payments/core/store.ts";
import { insertPayment } from "../src/payments/create/store.ts";
import { claimDueForExpiry } from "../src/payments/expiry/store.ts";
import { listPaymentSummaries, listPayments } from "../src/payments/queries/store.ts";
import { paymentsChangedBetween } from "../src/payments/reconciliation/store.ts";
import { type Database, postgresDatabase, type Queryable } from "../src/platform/db/database.ts";
import { listEventsAfterEvent } from "../src/webhooks/sql/read-models.ts";
import {
  ADMIN_TOKEN,
  CONNECTIONS,
  createBody,
  createPayments,
  DURATION_S,
  dashboardCookie,
  formatTable,
  freshDatabase,
  outcome,
  QUICK,
  type Service,
  startProcessorStub,
  startService,
  WARMUP_S,
} from "./kit.ts";

const PAYMENTS = 1_000_000;
const GROUPS = 1_000;
const EVENTS_PER_PAYMENT = 2;
const SEED_BATCH = 100_000;
/** The bench group's own events, which the stream's catch-up replays in both databases. */
const CATCH_UP_EVENTS = 1_000;
const ROUNDS = 2;

interface Side {
  name: "empty" | "seeded";
  service: Service;
  db: Database;
  paymentIds: string[];
  cookie: string;
  /** The event the stream resumes after: CATCH_UP_EVENTS of the group's events follow it. */
  resumeAfter: string;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  note?: string;
}

const log = (line: string) => process.stderr.write(`  ${line}\n`);

/**
 * 999 more groups with a SafeSite each, then the payments in batches (each one statement inside the
 * statement timeout): every thousandth is the bench group's, all older than a day, so the day a
 * reconciliation run covers and the first page hold the same rows in both databases.
 */
async function seed(db: Database, benchGroupId: string, benchSiteId: string): Promise<void> {
  const started = performance.now();
  await db.query(
    `INSERT INTO groups (id, name, webhook_secret)
     SELECT md5('g' || g)::uuid, 'Scale group ' || g, 'unused: deliveries seeded as done' FROM generate_series(1, $1 - 1) g`,
    [GROUPS],
  );
  await db.query(
    `INSERT INTO safe_sites (id, group_id, name, url)
     SELECT md5('s' || g)::uuid, md5('g' || g)::uuid, 'Default', 'https://pay' || g || '.example.com'
     FROM generate_series(1, $1 - 1) g`,
    [GROUPS],
  );
  // Group g = n % GROUPS; group 0 is the bench group.
  const groupOf = `CASE WHEN n % ${GROUPS} = 0 THEN $3::uuid ELSE md5('g' || (n % ${GROUPS}))::uuid END`;
  const siteOf = `CASE WHEN n % ${GROUPS} = 0 THEN $4::uuid ELSE md5('s' || (n % ${GROUPS}))::uuid END`;
  // One instant for every statement: a delivery carries its event's time, to the microsecond.
  const createdOf = `'${new Date().toISOString()}'::timestamptz - interval '2 days' - make_interval(secs => n * 30)`;
  for (let first = 1; first <= PAYMENTS; first += SEED_BATCH) {
    const range = [first, Math.min(first + SEED_BATCH - 1, PAYMENTS)];
    await db.query(
      `INSERT INTO payments (id, group_id, status, amount, currency, customer_email, success_url, cancel_url,
         safe_site_id, safe_site_url, link_token, expires_at, processor_checkout_id, created_at, updated_at, completed_at)
       SELECT md5('p' || n)::uuid, ${groupOf}, (ARRAY['succeeded','expired','failed','cancelled'])[1 + n % 4],
         100 + n % 9900, 'usd', 'customer' || (n % 50000) || '@example.com', 'https://s.example', 'https://c.example',
         ${siteOf}, 'https://pay.example.com', md5('t' || n), ${createdOf} + interval '30 minutes',
         'cs_seed_' || n, ${createdOf}, ${createdOf} + interval '5 minutes', ${createdOf} + interval '5 minutes'
       FROM generate_series($1::int, $2::int) AS n`,
      [...range, benchGroupId, benchSiteId],
    );
    await db.query(
      `INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason, created_at)
       SELECT md5('p' || n)::uuid, NULL, 'processing', 'created', ${createdOf}
       FROM generate_series($1::int, $2::int) AS n`,
      range,
    );
    await db.query(
      `INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
       SELECT md5('e' || n || '-' || k)::uuid, md5('p' || n)::uuid, ${groupOf}, (ARRAY['payment.succeeded', 'payment.refunded'])[k],
         (ARRAY['succeeded', 'refunded'])[k], json_build_object('transactionId', md5('p' || n)::uuid),
         ${createdOf} + make_interval(secs => k)
       FROM generate_series($1::int, $2::int) AS n, generate_series(1, ${EVENTS_PER_PAYMENT}) AS k`,
      [...range, benchGroupId],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, attempts, next_attempt_at,
         sent_timestamp, last_status_code, created_at, completed_at)
       SELECT md5('d' || n || '-' || k)::uuid, md5('e' || n || '-' || k)::uuid, ${createdOf} + make_interval(secs => k), 'https://hooks.example.com/h',
         'hooks.example.com:443', 'succeeded', 1, ${createdOf}, '0', 200, ${createdOf}, ${createdOf}
       FROM generate_series($1::int, $2::int) AS n, generate_series(1, ${EVENTS_PER_PAYMENT}) AS k`,
      range,
    );
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
       SELECT md5('d' || n || '-' || k)::uuid, 1, ${createdOf}, 200, 12
       FROM generate_series($1::int, $2::int) AS n, generate_series(1, ${EVENTS_PER_PAYMENT}) AS k`,
      range,
    );
    log(`seeded ${range[1]?.toLocaleString("en-US")} payments`);
  }
  await db.exec("VACUUM ANALYZE");
  log(`seeding took ${Math.round((performance.now() - started) / 1000)} s`);
}

/** The bench group's recent events, the same in both databases: the stream replays them. */
async function seedRecentEvents(db: Database, groupId: string, paymentId: string): Promise<string> {
  await db.query(
    `INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
     SELECT gen_random_uuid(), $2, $1, 'payment.succeeded', 'succeeded',
       json_build_object('event', 'payment.succeeded', 'transactionId', $2::uuid, 'n', n),
       now() - interval '1 hour' + make_interval(secs => n)
     FROM generate_series(0, $3::int) AS n`,
    [groupId, paymentId, CATCH_UP_EVENTS],
  );
  const [oldest] = await db.query<{ id: string }>(
    "SELECT id FROM webhook_events WHERE group_id = $1 AND payment_id = $2 ORDER BY created_at, id LIMIT 1",
    [groupId, paymentId],
  );
  return oldest?.id as string;
}

async function prepare(name: Side["name"], service: Service, db: Database): Promise<Side> {
  const paymentIds = (await createPayments(service, 200)).map((payment) => payment.id);
  const resumeAfter = await seedRecentEvents(db, service.groupId, paymentIds[0] as string);
  const cookie = await dashboardCookie(service, service.groupId);
  return { name, service, db, paymentIds, cookie, resumeAfter };
}

async function cannonOnce(options: autocannon.Options): Promise<Measure> {
  await autocannon({ connections: CONNECTIONS, duration: WARMUP_S, ...options });
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** Connects with Last-Event-ID and times until the CATCH_UP_EVENTS that follow it have arrived. */
async function catchUpOnce(side: Side): Promise<number> {
  const started = performance.now();
  const controller = new AbortController();
  const response = await fetch(`${side.service.url}/api/v1/events/stream`, {
    headers: { ...side.service.keys, "last-event-id": side.resumeAfter },
    signal: controller.signal,
  });
  let received = 0;
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    const text = tail + decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    tail = lines.pop() ?? "";
    received += lines.filter((line) => line.startsWith("id:")).length;
    if (received >= CATCH_UP_EVENTS) break;
  }
  controller.abort();
  if (received < CATCH_UP_EVENTS) throw new Error(`the stream replayed ${received} of ${CATCH_UP_EVENTS}`);
  return performance.now() - started;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function catchUps(side: Side): Promise<Measure> {
  const times: number[] = [];
  const deadline = performance.now() + DURATION_S * 1000;
  await catchUpOnce(side);
  while (performance.now() < deadline) times.push(await catchUpOnce(side));
  times.sort((a, b) => a - b);
  const total = times.reduce((sum, ms) => sum + ms, 0);
  return {
    rps: Math.round((times.length * CATCH_UP_EVENTS) / (total / 1000)),
    p50: Math.round(percentile(times, 0.5)),
    p99: Math.round(percentile(times, 0.99)),
    errors: 0,
    note: `events/s; ${times.length} catch-ups of ${CATCH_UP_EVENTS}`,
  };
}

/** A run over the last day, through the admin API, timed until it reports itself finished. */
async function reconciliationRun(side: Side): Promise<Measure> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const started = performance.now();
  const response = await fetch(`${side.service.url}/admin/v1/reconciliation/runs`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ since: new Date(Date.now() - 86_400_000).toISOString() }),
  });
  const { runId } = ((await response.json()) as { data: { runId: string } }).data;
  for (;;) {
    const run = (
      (await (
        await fetch(`${side.service.url}/admin/v1/reconciliation/runs/${runId}`, { headers: admin })
      ).json()) as {
        data: { status: string; checked: number };
      }
    ).data;
    if (run.status === "finished") {
      const ms = performance.now() - started;
      return {
        rps: Math.round(run.checked / (ms / 1000)),
        p50: Math.round(ms),
        p99: Math.round(ms),
        errors: 0,
        note: `payments checked/s; ${run.checked} in the day`,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The expiry sweep's claim, as the service runs it, rolled back so every run finds the same rows. */
async function expirySweeps(side: Side): Promise<Measure> {
  const times: number[] = [];
  const deadline = performance.now() + DURATION_S * 1000;
  while (performance.now() < deadline) {
    const started = performance.now();
    await rolledBack(side.db, (tx) => claimDueForExpiry(tx, 100, 60_000, new Date()));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    rps: Math.round(times.length / (times.reduce((sum, ms) => sum + ms, 0) / 1000)),
    p50: Math.round(percentile(times, 0.5) * 10) / 10,
    p99: Math.round(percentile(times, 0.99) * 10) / 10,
    errors: 0,
    note: "sweeps/s, one at a time",
  };
}

class RolledBack extends Error {}

/** Runs `work` in a transaction that is always rolled back, and returns what it returned. */
async function rolledBack<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  await db
    .transaction(async (tx) => {
      result = { value: await work(tx) };
      throw new RolledBack("rolled back on purpose");
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return (result as { value: T }).value;
}

const PATHS: { name: string; measure: (side: Side) => Promise<Measure> }[] = [
  {
    name: "create",
    measure: (side) =>
      cannonOnce({
        url: `${side.service.url}/api/v1/payments/create`,
        method: "POST",
        headers: { ...side.service.keys, "content-type": "application/json" },
        body: createBody,
      }),
  },
  {
    name: "get",
    measure: (side) => {
      let next = 0;
      return cannonOnce({
        url: side.service.url,
        requests: [
          {
            method: "GET",
            setupRequest: (request) => {
              next = (next + 1) % side.paymentIds.length;
              const path = `/api/v1/payments/${side.paymentIds[next]}`;
              return { ...request, path, headers: side.service.keys };
            },
          },
        ],
      });
    },
  },
  {
    name: "payments list API",
    measure: (side) => cannonOnce({ url: `${side.service.url}/api/v1/payments`, headers: side.service.keys }),
  },
  {
    name: "dashboard payment list",
    measure: (side) =>
      cannonOnce({ url: `${side.service.url}/dashboard/payments`, headers: { cookie: side.cookie } }),
  },
  { name: "events stream catch-up", measure: catchUps },
  { name: "reconciliation run over a day", measure: reconciliationRun },
  { name: "expiry sweep", measure: expirySweeps },
];

/** Records the statement a store function sends, without sending it. */
function recorder(): Queryable & { last: () => { sql: string; params: unknown[] } } {
  let last = { sql: "", params: [] as unknown[] };
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      last = { sql, params };
      return [] as Row[];
    },
    async exec() {},
    last: () => last,
  };
}

/** EXPLAIN ANALYZE of each path's statement on the seeded database, in a transaction rolled back. */
async function explainPaths(side: Side): Promise<string> {
  const groupId = side.service.groupId;
  const [site] = await side.db.query<{ id: string; url: string }>(
    "SELECT id, url FROM safe_sites WHERE group_id = $1 LIMIT 1",
    [groupId],
  );
  const record = recorder();
  const statements: [string, () => Promise<unknown>][] = [
    [
      "create: insert the payment and its first status change",
      () =>
        insertPayment(
          record,
          {
            plan: {
              transactionId: randomUUID(),
              linkToken: randomUUID(),
              expiresAt: new Date(Date.now() + 1_800_000),
              safeSite: site as { id: string; url: string },
            },
            groupId,
            processor: "stripe",
            amount: 1999,
            currency: "usd",
            customerEmail: "bench@example.com",
            customerName: null,
            description: null,
            metadata: null,
            successUrl: "https://s.example",
            cancelUrl: "https://c.example",
            webhookUrl: null,
            droppedWebhookHost: null,
            redirectFallback: false,
            failovers: [],
            paymentLinkId: null,
          },
          {
            status: "processing",
            checkoutId: `cs_explain_${randomUUID()}`,
            checkoutUrl: "https://x.example",
          },
        ),
    ],
    ["get", () => findPaymentResource(record, groupId, side.paymentIds[0] as string)],
    ["payments list API (first page)", () => listPayments(record, groupId, {}, 21)],
    ["dashboard payment list (first page)", () => listPaymentSummaries(record, groupId, {}, 51)],
    ["events stream catch-up", () => listEventsAfterEvent(record, groupId, side.resumeAfter, 200)],
    [
      "reconciliation run over a day (a batch half-way through the day)",
      () =>
        paymentsChangedBetween(
          record,
          {
            since: new Date(Date.now() - 86_400_000),
            until: new Date(),
            runStartedAt: new Date().toISOString(),
          },
          {
            updatedAt: new Date(Date.now() - 43_200_000).toISOString(),
            id: "00000000-0000-0000-0000-000000000000",
          },
          100,
        ),
    ],
    ["expiry sweep (the claim)", () => claimDueForExpiry(record, 100, 60_000, new Date())],
  ];
  const sections: string[] = [];
  for (const [title, send] of statements) {
    await send();
    const { sql, params } = record.last();
    const plan = await rolledBack(side.db, async (tx) => {
      const rows = await tx.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) ${sql}`,
        params,
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    sections.push(`### ${title}\n\n\`\`\`\n${plan}\n\`\`\``);
  }
  return sections.join("\n\n");
}

export async function scaleRun(): Promise<void> {
  const emptyDatabase = await freshDatabase();
  const seededDatabase = await freshDatabase();
  const sides: Side[] = [];
  try {
    const stub = await startProcessorStub();
    const seededService = await startService({ DATABASE_URL: seededDatabase.url }, stub);
    const seededDb = postgresDatabase(seededDatabase.url, { max: 4 });
    const [site] = await seededDb.query<{ id: string }>("SELECT id FROM safe_sites WHERE group_id = $1", [
      seededService.groupId,
    ]);
    process.stderr.write(
      `seeding ${PAYMENTS.toLocaleString("en-US")} payments across ${GROUPS} groups, ` +
        `${(PAYMENTS * EVENTS_PER_PAYMENT).toLocaleString("en-US")} events with their deliveries and attempts\n`,
    );
    await seed(seededDb, seededService.groupId, site?.id as string);
    const emptyService = await startService({ DATABASE_URL: emptyDatabase.url }, stub);
    const emptyDb = postgresDatabase(emptyDatabase.url, { max: 4 });
    sides.push(
      await prepare("empty", emptyService, emptyDb),
      await prepare("seeded", seededService, seededDb),
    );

    const best = new Map<string, Measure>();
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round} of ${ROUNDS}\n`);
      // Fresh statistics on both sides, as autovacuum keeps them: the rounds' creates add thousands
      // of rows, and a planner that still thinks a table empty is not what either side would meet.
      for (const side of sides) await side.db.exec("ANALYZE");
      // Each round measures the sides in the other order, so neither always goes first.
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const path of PATHS) {
        for (const side of order) {
          const measured = await path.measure(side);
          const key = `${path.name}|${side.name}`;
          log(`${path.name}, ${side.name}: ${measured.rps}/s, p99 ${measured.p99} ms`);
          if (measured.errors > 0) outcome.failed = true;
          if ((best.get(key)?.rps ?? -1) < measured.rps) best.set(key, measured);
        }
      }
    }

    const rows = [
      ["path", "empty /s", "seeded /s", "seeded vs empty", "p99 ms empty → seeded", "unit", "target"],
    ];
    for (const path of PATHS) {
      const empty = best.get(`${path.name}|empty`) as Measure;
      const seeded = best.get(`${path.name}|seeded`) as Measure;
      const ratio = seeded.rps / Math.max(empty.rps, 1);
      rows.push([
        path.name,
        String(empty.rps),
        String(seeded.rps),
        `${Math.round(ratio * 100)} %`,
        `${empty.p99} → ${seeded.p99}`,
        seeded.note ?? "req/s",
        `${ratio >= 0.85 ? "met" : "MISSED"}: within 15 % of empty`,
      ]);
    }
    process.stdout.write(`\n${formatTable(rows)}\n`);
    process.stdout.write(
      `\n${PAYMENTS.toLocaleString("en-US")} payments, ${GROUPS} groups, ` +
        `${(PAYMENTS * EVENTS_PER_PAYMENT).toLocaleString("en-US")} events, deliveries and attempts; ` +
        `${CONNECTIONS} connections, ${DURATION_S} s per measure, best of ${ROUNDS} rounds, ${new Date().toISOString()}` +
        `${QUICK ? " (--quick)" : ""}\n`,
    );
    process.stdout.write(
      `\n## EXPLAIN ANALYZE on the seeded database\n\n${await explainPaths(sides[1] as Side)}\n`,
    );
  } finally {
    for (const side of sides) await side.db.close();
    await emptyDatabase.drop().catch(() => {});
    await seededDatabase.drop().catch(() => {});
  }
}
