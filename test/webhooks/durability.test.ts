import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Database } from "../../src/platform/db/database.ts";
import { openEmbeddedDatabase } from "../../src/platform/db/embedded.ts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { anyDueDeliveries, claimDueDeliveries, INTERRUPTED_ATTEMPT } from "../../src/webhooks/sql/queue.ts";
import {
  createTestDatabase,
  migratedDataDir,
  NEEDS_POSTGRES,
  onPostgres,
  openTestPostgres,
} from "../helpers/database.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";
import { insertEventsWithDeliveries } from "../helpers/webhook-backlog.ts";

/** A database that outlives one service: reopened by each start, removed at the end. */
async function durableDatabase(): Promise<{ open: () => Promise<Database>; remove: () => Promise<void> }> {
  if (onPostgres) {
    const fresh = await createTestDatabase();
    return { open: async () => openTestPostgres(fresh.url as string), remove: () => fresh.db.close() };
  }
  const dir = await migratedDataDir("checkout-durable-");
  return { open: () => openEmbeddedDatabase(dir), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Queues `count` deliveries of one event shape to `url`, as the outbox would. */
async function queueDeliveries(service: TestService, group: TestGroup, url: string, count: number) {
  const payment = (await service.createPayment(group)).body.data.transactionId;
  await insertEventsWithDeliveries(
    service.services.db,
    {
      groupId: group.groupId,
      transactionId: payment,
      event: "payment.failed",
      status: "cancelled",
      payload: { event: "payment.failed", transactionId: payment, status: "cancelled", metadata: {} },
    },
    { url, destination: new URL(url).host },
    count,
  );
  service.services.outbox.wake();
}

/** Waits until `count` deliveries are recorded as delivered: a receiver's count runs ahead of the record. */
function allDelivered(service: TestService, count: number, timeoutMs: number): Promise<true> {
  return waitFor(
    async () => {
      const [row] = await service.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'succeeded'",
      );
      return row?.n === count ? true : undefined;
    },
    timeoutMs,
    "all delivered",
  );
}

/**
 * A service that queues work without a dispatcher and stops, then a second one on the same
 * database that must finish it, both delivering to one loopback receiver.
 */
async function acrossRestart<T>(
  prepare: (first: TestService, group: TestGroup, hookUrl: string) => Promise<T>,
  verify: (second: TestService, group: TestGroup, prepared: T, receiver: Receiver) => Promise<void>,
): Promise<void> {
  const receiver = new Receiver({ "/hook": () => 200 });
  await receiver.start();
  const database = await durableDatabase();
  const env = { ALLOWED_PRIVATE_HOSTS: "127.0.0.1" };
  try {
    const first = await startTestService(env, { db: await database.open(), workers: false });
    const group = await first.createGroup();
    const prepared = await prepare(first, group, `${receiver.url}/hook`);
    await first.close();
    const second = await startTestService(env, { db: await database.open() });
    try {
      await verify(second, group, prepared, receiver);
    } finally {
      await second.close();
    }
  } finally {
    await receiver.stop();
    await database.remove();
  }
}

describe("webhook durability and fairness", () => {
  it("a delivery queued before a stop is sent after the next start", async () => {
    await acrossRestart(
      async (first, group, hookUrl) => {
        const created = (await first.createPayment(group, { webhookUrl: hookUrl })).body.data;
        await first.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
        await sleep(200);
        return created.transactionId as string;
      },
      async (_second, _group, transactionId, receiver) => {
        assert.equal(receiver.received.length, 0, "nothing was sent while no dispatcher ran");
        await waitFor(async () => (receiver.received.length === 1 ? true : undefined));
        assert.equal(JSON.parse(receiver.received[0]?.body ?? "{}").transactionId, transactionId);
      },
    );
  });

  it("an attempt whose instance died before recording it is logged as interrupted, then retried", async () => {
    await acrossRestart(
      async (first, group, hookUrl) => {
        await queueDeliveries(first, group, hookUrl, 1);
        // What a dispatcher does before sending, with a lease that runs out at once; then it "dies".
        const [claimed] = await claimDueDeliveries(first.services.db, {
          limit: 1,
          saturated: [],
          held: [],
          holdLimit: 1,
          leaseMs: 1,
          sentTimestamp: new Date().toISOString(),
        });
        assert.ok(claimed);
        await sleep(50);
        return claimed.payment_id;
      },
      async (second, group, transactionId, receiver) => {
        const attemptsLogged = async () =>
          (await second.api(group, "GET", `/api/v1/payments/${transactionId}/events`)).body.data[0]
            .deliveries[0].attempts;
        await waitFor(async () => (receiver.received.length === 1 ? true : undefined));
        const attempts = await attemptsLogged();
        await waitFor(async () => ((await attemptsLogged()).length === 2 ? true : undefined));
        const logged = await attemptsLogged();
        assert.ok(attempts.length >= 1);
        assert.deepEqual(
          logged.map((attempt: { attempt: number; error: string | null; statusCode: number | null }) => [
            attempt.attempt,
            attempt.error,
            attempt.statusCode,
          ]),
          [
            [1, INTERRUPTED_ATTEMPT, null],
            [2, null, 200],
          ],
        );
      },
    );
  });

  it("claims still waiting for a slot when the dispatcher stops are given back as they were", async () => {
    const receiver = new Receiver({
      "/hook": async () => {
        await sleep(300);
        return 200;
      },
    });
    await receiver.start();
    const database = await durableDatabase();
    // One in flight to the receiver, three more claimed and waiting behind it.
    const env = { ALLOWED_PRIVATE_HOSTS: "127.0.0.1", WEBHOOK_CONCURRENCY: "4" };
    try {
      const first = await startTestService(env, { db: await database.open() });
      const group = await first.createGroup();
      await queueDeliveries(first, group, `${receiver.url}/hook`, 6);
      await waitFor(async () => (receiver.received.length === 1 ? true : undefined), 5000, "first sent");
      const [held] = await first.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE locked_until IS NOT NULL",
      );
      assert.equal(held?.n, 4, "the dispatcher held one in flight and three waiting");
      await first.close();

      const second = await startTestService(env, { db: await database.open(), workers: false });
      try {
        const rows = await second.services.db.query<{
          state: string;
          attempts: number;
          leased: boolean;
          stamped: boolean;
        }>(
          `SELECT state, attempts, locked_until IS NOT NULL AS leased, sent_timestamp IS NOT NULL AS stamped
           FROM webhook_deliveries ORDER BY state DESC, attempts DESC`,
        );
        assert.deepEqual(rows, [
          { state: "succeeded", attempts: 1, leased: false, stamped: true },
          ...Array.from({ length: 5 }, () => ({
            state: "pending",
            attempts: 0,
            leased: false,
            stamped: false,
          })),
        ]);
        assert.equal(receiver.received.length, 1, "nothing waiting was sent after the stop");
      } finally {
        await second.close();
      }

      const third = await startTestService(env, { db: await database.open() });
      try {
        await allDelivered(third, 6, 10000);
        const logged = await third.services.db.query<{ attempt: number; error: string | null }>(
          "SELECT attempt, error FROM webhook_attempts",
        );
        assert.equal(logged.length, 6);
        assert.ok(
          logged.every((entry) => entry.attempt === 1 && entry.error === null),
          "no attempt was logged as interrupted",
        );
        assert.equal(new Set(receiver.received.map((entry) => entry.headers["webhook-id"])).size, 6);
      } finally {
        await third.close();
      }
    } finally {
      await receiver.stop();
      await database.remove();
    }
  });

  /**
   * A slow receiver (400 ms an answer) with `slowBacklog` due, then five for a fast one: the fast
   * one is served within 3 s, while the slow one has had fewer than `slowAtMost`. Four in flight at
   * most: one per receiver, and a claim reads at most 64 due rows.
   */
  async function slowThenFast(slowBacklog: number, slowAtMost: number, options: { midDrain: boolean }) {
    const slow = new Receiver({
      "/hook": async () => {
        await sleep(400);
        return 200;
      },
    });
    const fast = new Receiver({ "/hook": () => 200 });
    await slow.start();
    await fast.start();
    const service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1", WEBHOOK_CONCURRENCY: "4" });
    try {
      const group = await service.createGroup();
      await queueDeliveries(service, group, `${slow.url}/hook`, slowBacklog);
      if (options.midDrain) {
        // With some of the slow host's attempts done: not when its hold happens to be full.
        await waitFor(async () => (slow.received.length >= 3 ? true : undefined), 3000, "slow host started");
      }
      await queueDeliveries(service, group, `${fast.url}/hook`, 5);
      await waitFor(
        async () => (fast.received.length === 5 ? true : undefined),
        3000,
        "fast receiver served",
      );
      assert.ok(
        slow.received.length < slowAtMost,
        `slow receiver had ${slow.received.length} when the fast one was done`,
      );
    } finally {
      await service.close();
      await slow.stop();
      await fast.stop();
    }
  }

  it("one slow receiver cannot starve the others", () => slowThenFast(12, 12, { midDrain: false }));

  it("a slow receiver's backlog, longer than a claim reads, does not hold back the others", () =>
    slowThenFast(100, 20, { midDrain: true }));

  it("a claim keeps each receiver within its own hold, and others within the default", async () => {
    const service = await startTestService({}, { workers: false });
    try {
      const group = await service.createGroup();
      await queueDeliveries(service, group, "https://fast.example.com/hook", 10);
      await queueDeliveries(service, group, "https://new.example.com/hook", 10);
      const claimed = await claimDueDeliveries(service.services.db, {
        limit: 100,
        saturated: [],
        held: [{ destination: "fast.example.com", count: 2, limit: 7 }],
        holdLimit: 3,
        leaseMs: 60_000,
        sentTimestamp: new Date().toISOString(),
      });
      const claimedFor = (destination: string) =>
        claimed.filter((delivery) => delivery.destination === destination).length;
      assert.equal(claimedFor("fast.example.com"), 5, "up to its hold of 7, 2 already held");
      assert.equal(claimedFor("new.example.com"), 3, "the default hold");
    } finally {
      await service.close();
    }
  });

  /** Runs `work` while another transaction holds row locks on every delivery, as a claim in progress would. */
  async function whileDeliveriesLocked<T>(service: TestService, work: () => Promise<T>): Promise<T> {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const holder = service.services.db.transaction(async (tx) => {
      await tx.query("SELECT id FROM webhook_deliveries FOR UPDATE");
      holding();
      await released;
    });
    await Promise.race([held, holder]);
    try {
      return await work();
    } finally {
      release();
      await holder;
    }
  }

  it("rows another dispatcher is claiming are skipped by a claim, and still read as due", {
    skip: !onPostgres && `${NEEDS_POSTGRES}; the embedded database is one connection`,
  }, async () => {
    const service = await startTestService({}, { workers: false });
    try {
      const group = await service.createGroup();
      await queueDeliveries(service, group, "https://busy.example.com/hook", 10);
      const { db } = service.services;
      const claim = async () => {
        const claimed = await claimDueDeliveries(db, {
          limit: 100,
          saturated: [],
          held: [],
          holdLimit: 32,
          leaseMs: 60_000,
          sentTimestamp: new Date().toISOString(),
        });
        return { claimed: claimed.length, due: await anyDueDeliveries(db) };
      };
      assert.deepEqual(await whileDeliveriesLocked(service, claim), { claimed: 0, due: true });
      assert.deepEqual(
        await claim(),
        { claimed: 10, due: false },
        "the same rows, once the other claim ended",
      );
    } finally {
      await service.close();
    }
  });

  it("a dispatcher that lost its rows to another's claim looks again within milliseconds, not at its next poll", {
    skip: !onPostgres && `${NEEDS_POSTGRES}; the embedded database is one connection`,
  }, async () => {
    const receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    const service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" }, { workers: false });
    const { db, outbox, box, metrics } = service.services;
    // A poll far beyond the test's wait: only the dispatcher's own retry can deliver in time.
    const dispatcher = new WebhookDispatcher({
      db,
      outbox,
      box,
      metrics,
      config: service.config,
      log: service.app.log,
      pollIntervalMs: 600_000,
    });
    try {
      const group = await service.createGroup();
      await queueDeliveries(service, group, `${receiver.url}/hook`, 10);
      await whileDeliveriesLocked(service, async () => {
        await dispatcher.start();
        await sleep(100);
        assert.equal(receiver.received.length, 0, "the locked rows were not sent");
      });
      await waitFor(
        async () => (receiver.received.length === 10 ? true : undefined),
        5000,
        "the rows delivered after the locks were released",
      );
    } finally {
      await dispatcher.stop();
      await service.close();
      await receiver.stop();
    }
  });

  it("two dispatchers on one PostgreSQL database deliver 1,000 events, none twice", {
    skip: !onPostgres && NEEDS_POSTGRES,
  }, async () => {
    const receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    const database = await durableDatabase();
    const env = { ALLOWED_PRIVATE_HOSTS: "127.0.0.1", WEBHOOK_CONCURRENCY: "32" };
    const first = await startTestService(env, { db: await database.open() });
    const second = await startTestService(env, { db: await database.open() });
    try {
      const group = await first.createGroup();
      await queueDeliveries(first, group, `${receiver.url}/hook`, 1000);
      await allDelivered(first, 1000, 60000);
      await sleep(200);
      const ids = receiver.received.map((entry) => entry.headers["webhook-id"]);
      assert.equal(ids.length, 1000, "no attempt was sent twice");
      assert.equal(new Set(ids).size, 1000, "every event was delivered");
      const [attempts] = await first.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_attempts",
      );
      assert.equal(attempts?.n, 1000);
      const byInstance = await Promise.all(
        [first, second].map(async (service) => {
          const text = String((await service.request("GET", "/metrics")).body);
          return Number(/webhook_attempts_total\{outcome="delivered"\} (\d+)/.exec(text)?.[1] ?? 0);
        }),
      );
      assert.equal((byInstance[0] ?? 0) + (byInstance[1] ?? 0), 1000);
      assert.ok(
        (byInstance[0] ?? 0) > 0 && (byInstance[1] ?? 0) > 0,
        `both dispatchers worked: ${byInstance}`,
      );
    } finally {
      await first.close();
      await second.close();
      await receiver.stop();
      await database.remove();
    }
  });
});
