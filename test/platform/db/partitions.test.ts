// The weekly partitions of the tables that grow with every event (docs/operations.md, "Data
// lifetime"): an existing installation's rows survive the migration that partitions them, whole
// weeks past the retention are dropped, and the weeks ahead are kept made.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordProcessorEvent } from "../../../src/payments/processor-events/store.ts";
import type { Database } from "../../../src/platform/db/database.ts";
import { applyMigrations, migrate } from "../../../src/platform/db/migrate.ts";
import {
  dropWeeksBefore,
  makeWeeksBack,
  makeWeeksDue,
  PARTITIONED_TABLES,
  partitionRunway,
  partitionsOf,
  WEEK_MS,
  WEEKS_AHEAD,
  weekStart,
} from "../../../src/platform/db/partitions.ts";
import { pruneAll, pruners } from "../../../src/privacy/pruning.ts";
import { insertEventAndDeliveries } from "../../../src/webhooks/sql/outbox.ts";
import { createTestDatabase } from "../../helpers/database.ts";

const DAY_MS = 86_400_000;
const RETENTION = { webhookAttemptRetentionDays: 90, eventRetentionDays: 90, auditRetentionDays: 400 };
const GROUP = "00000000-0000-4000-8000-000000000001";
const PAYMENT = "00000000-0000-4000-8000-000000000002";

async function seedPayment(db: Database): Promise<void> {
  await db.query("INSERT INTO groups (id, name, webhook_secret) VALUES ($1, 'Old shop', 'whsec_x')", [GROUP]);
  await db.query(
    `INSERT INTO safe_sites (id, group_id, name, url)
     VALUES ('00000000-0000-4000-8000-000000000003', $1, 'Shop', 'https://pay.example.com')`,
    [GROUP],
  );
  await db.query(
    `INSERT INTO payments (id, group_id, status, amount, currency, success_url, cancel_url, safe_site_id,
       safe_site_url, link_token, expires_at)
     VALUES ($1, $2, 'succeeded', 1000, 'usd', 'https://shop.example.com/ok', 'https://shop.example.com/no',
       '00000000-0000-4000-8000-000000000003', 'https://pay.example.com', 'token', now())`,
    [PAYMENT, GROUP],
  );
}

/** An event `days` old with its delivery (its time carried only once the table is partitioned), an attempt, a processor event and an audit entry. */
async function seedAged(db: Database, days: number, partitioned: boolean): Promise<void> {
  const at = new Date(Date.now() - days * DAY_MS);
  const delivery = partitioned
    ? `INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, created_at)
       SELECT gen_random_uuid(), id, created_at, 'https://hooks.example.com/h', 'hooks.example.com:443', 'succeeded', created_at FROM event`
    : `INSERT INTO webhook_deliveries (id, event_id, url, destination, state, created_at)
       SELECT gen_random_uuid(), id, 'https://hooks.example.com/h', 'hooks.example.com:443', 'succeeded', created_at FROM event`;
  await db.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'payment.completed', 'succeeded', '{}', $3) RETURNING id, created_at
     ), delivery AS (${delivery} RETURNING id, created_at)
     INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
     SELECT id, 1, created_at, 200, 5 FROM delivery`,
    [PAYMENT, GROUP, at],
  );
  await db.query(
    "INSERT INTO processor_events (processor, id, type, received_at) VALUES ('stripe', $1, 'checkout.session.completed', $2)",
    [`evt_${days}`, at],
  );
  await db.query(
    "INSERT INTO audit_log (group_id, actor, action, created_at) VALUES ($1, 'admin-token', $2, $3)",
    [GROUP, `aged.${days}`, new Date(Date.now() - days * 5 * DAY_MS)],
  );
}

const count = async (db: Database, table: string) =>
  (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]?.n ?? 0;

describe("weekly partitions", () => {
  it("migration 021 keeps an installation's rows in `_history`, where the service reads, replays and prunes them", async () => {
    const { db } = await createTestDatabase({ empty: true });
    try {
      await applyMigrations(db, 20);
      await seedPayment(db);
      for (const days of [100, 10, 0]) await seedAged(db, days, false);
      const before = Object.fromEntries(
        await Promise.all(PARTITIONED_TABLES.map(async (table) => [table, await count(db, table)])),
      );
      const [{ lastAudit } = { lastAudit: 0 }] = await db.query<{ lastAudit: number }>(
        'SELECT max(id)::int AS "lastAudit" FROM audit_log',
      );

      assert.equal((await migrate(db))[0], "021_time_partitions.sql", "021 first, then any later ones");

      for (const table of PARTITIONED_TABLES) {
        assert.equal(await count(db, table), before[table], `${table} kept every row`);
        assert.equal(
          await count(db, `${table}_history`),
          before[table],
          `${table}'s rows are in its _history`,
        );
        const partitions = await partitionsOf(db, table);
        const history = partitions[0];
        assert.equal(history?.lower, null);
        assert.equal(
          history?.upper.getTime(),
          weekStart(new Date()).getTime() + WEEK_MS,
          "_history ends next Monday",
        );
        assert.equal(partitions.length, 1 + WEEKS_AHEAD, `${table}: WEEKS_AHEAD weeks made after _history`);
      }
      assert.equal(
        await count(
          db,
          "webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id AND e.created_at = d.event_created_at",
        ),
        3,
        "each delivery carries its event's time",
      );
      const replay = {
        processor: "stripe",
        type: "checkout.session.completed",
        paymentId: null,
        mismatch: null,
      };
      assert.equal(
        await db.transaction((tx) => recordProcessorEvent(tx, { ...replay, id: "evt_100" })),
        false,
      );
      assert.equal(
        await db.transaction((tx) => recordProcessorEvent(tx, { ...replay, id: "evt_new" })),
        true,
      );
      await db.query("INSERT INTO audit_log (actor, action) VALUES ('admin-token', 'after.upgrade')");
      const [fresh] = await db.query<{ id: number }>(
        "SELECT id::int FROM audit_log WHERE action = 'after.upgrade'",
      );
      assert.ok((fresh?.id ?? 0) > lastAudit, "audit ids go on from the last one");
      await insertEventAndDeliveries(
        db,
        {
          id: crypto.randomUUID(),
          groupId: GROUP,
          transactionId: PAYMENT,
          event: "payment.refunded",
          status: "refunded",
          payload: {},
        },
        { id: crypto.randomUUID(), url: "https://hooks.example.com/h", destination: "hooks.example.com:443" },
      );

      // Until _history ends past the cutoff, its old rows go by batches.
      const pruned = await pruneAll(db, pruners(RETENTION), new Date(), 0);
      assert.deepEqual(pruned, {
        "webhook events": 1,
        "webhook attempts": 1,
        "processor events": 1,
        "audit entries": 1,
      });
      assert.equal(await count(db, "webhook_deliveries"), 3, "the old event's delivery went with it");

      // Once it has, _history goes whole and comes back empty, in front of the weeks left.
      const later = new Date(Date.now() + 100 * DAY_MS);
      await makeWeeksDue(db, later);
      const dropped = await pruneAll(db, pruners(RETENTION), later, 0);
      assert.ok((dropped["webhook events: weeks dropped"] ?? 0) >= 1, JSON.stringify(dropped));
      assert.equal(await count(db, "webhook_events"), 0);
      assert.equal(await count(db, "webhook_deliveries"), 0);
      const [history, first] = await partitionsOf(db, "webhook_events");
      assert.equal(
        history?.upper.getTime(),
        first?.lower?.getTime(),
        "_history ends where the first week begins",
      );
      assert.ok((first?.upper ?? new Date(0)) > new Date(later.getTime() - 90 * DAY_MS));
      await seedAged(db, 300, true);
      assert.equal(
        await count(db, "webhook_events_history"),
        1,
        "a row from before every week still has a place",
      );
    } finally {
      await db.close();
    }
  });

  it("two instances dropping the same weeks at once: one drops them, the other leaves them to it; one `_history` is left", async () => {
    const { db } = await createTestDatabase();
    try {
      await seedPayment(db);
      for (const table of PARTITIONED_TABLES)
        await makeWeeksBack(db, table, new Date(Date.now() - 200 * DAY_MS));
      for (const days of [150, 120, 100, 80]) await seedAged(db, days, true);
      const cutoff = new Date(Date.now() - 90 * DAY_MS);
      const runs = await Promise.all([
        dropWeeksBefore(db, "webhook_attempts", cutoff),
        dropWeeksBefore(db, "webhook_attempts", cutoff),
      ]);
      const done = runs.filter((run) => run !== null);
      assert.ok(done.length >= 1, "one of them drops the weeks");
      if (done.length === 2) assert.equal(done[1]?.dropped, 0, "the second finds nothing left");
      assert.equal(
        await dropWeeksBefore(db, "webhook_attempts", cutoff).then((run) => run?.dropped),
        0,
        "the lease is given back, and nothing was left half-done",
      );
      const partitions = await partitionsOf(db, "webhook_attempts");
      assert.equal(partitions.filter((partition) => partition.lower === null).length, 1);
      assert.ok(
        partitions.every(
          (partition) => (!partition.detaching && partition.upper > cutoff) || partition.lower === null,
        ),
      );
      assert.equal(await count(db, "webhook_attempts"), 1, "only the attempt inside the retention is left");
    } finally {
      await db.close();
    }
  });

  it("leaves a table's weeks to the instance holding its lease, and takes them over once the lease runs out", async () => {
    const { db } = await createTestDatabase();
    try {
      await seedPayment(db);
      for (const table of PARTITIONED_TABLES)
        await makeWeeksBack(db, table, new Date(Date.now() - 200 * DAY_MS));
      await seedAged(db, 150, true);
      await db.query(
        `INSERT INTO partition_leases (table_name, holder, held_until)
         VALUES ('webhook_attempts', gen_random_uuid(), now() + interval '10 minutes')`,
      );
      const cutoff = new Date(Date.now() - 90 * DAY_MS);
      assert.equal(await dropWeeksBefore(db, "webhook_attempts", cutoff), null);
      const pruned = await pruneAll(db, pruners(RETENTION), new Date(), 0);
      assert.equal(pruned["webhook attempts: weeks dropped"], undefined);
      assert.equal(pruned["webhook attempts"], undefined, "nor its rows one by one");
      assert.equal(await count(db, "webhook_attempts"), 1, "the holder's to drop");
      assert.ok(pruned["webhook events: weeks dropped"], "other tables' weeks go meanwhile");

      await db.query("UPDATE partition_leases SET held_until = now() - interval '1 second'");
      const taken = await dropWeeksBefore(db, "webhook_attempts", cutoff);
      assert.ok(taken && taken.dropped > 1, "the weeks before the cutoff and `_history`");
      assert.equal(await count(db, "webhook_attempts"), 0);
    } finally {
      await db.close();
    }
  });

  it("drops whole weeks past the retention, keeps the weeks inside it, and makes the weeks ahead", async () => {
    const { db } = await createTestDatabase();
    try {
      await seedPayment(db);
      for (const table of PARTITIONED_TABLES)
        await makeWeeksBack(db, table, new Date(Date.now() - 700 * DAY_MS));
      // 100 days: its week ended before the cutoff. 80 days: inside the retention.
      for (const days of [100, 80]) await seedAged(db, days, true);
      const pruned = await pruneAll(db, pruners(RETENTION), new Date(), 0);
      assert.deepEqual(Object.keys(pruned).sort(), [
        "audit entries: weeks dropped",
        "processor events: weeks dropped",
        "webhook attempts: weeks dropped",
        "webhook events: weeks dropped",
      ]);
      for (const table of [
        "webhook_events",
        "webhook_deliveries",
        "webhook_attempts",
        "processor_events",
        "audit_log",
      ]) {
        assert.equal(await count(db, table), 1, `${table}: the week inside the retention stays`);
      }
      const cutoff = new Date(Date.now() - 90 * DAY_MS);
      const [history, first] = await partitionsOf(db, "webhook_events");
      assert.ok(
        first?.lower && first.lower <= cutoff && first.upper > cutoff,
        "the week the cutoff falls in stays whole",
      );
      assert.equal(history?.upper.getTime(), first?.lower?.getTime());
      assert.deepEqual(
        await pruneAll(db, pruners(RETENTION), new Date(), 0),
        {},
        "a second run finds nothing",
      );
      assert.deepEqual(await dropWeeksBefore(db, "webhook_events", cutoff), {
        dropped: 0,
        historyEnds: first?.lower,
      });

      assert.equal(await makeWeeksDue(db, new Date()), 0, "the weeks ahead were made at migration");
      const runway = await partitionRunway(db, new Date());
      assert.ok(
        runway > (WEEKS_AHEAD * WEEK_MS) / 1000 && runway <= ((WEEKS_AHEAD + 1) * WEEK_MS) / 1000,
        `${runway}`,
      );
      assert.equal(await makeWeeksDue(db, new Date(Date.now() + 3 * WEEK_MS)), 3 * PARTITIONED_TABLES.length);
      await db.query(
        `INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
         VALUES (gen_random_uuid(), $1, $2, 'payment.completed', 'succeeded', '{}', now() - interval '800 days')`,
        [PAYMENT, GROUP],
      );
      await assert.rejects(
        makeWeeksBack(db, "webhook_events", new Date(Date.now() - 900 * DAY_MS)),
        /holds rows/,
        "weeks are made back only while _history is empty",
      );
    } finally {
      await db.close();
    }
  });
});
