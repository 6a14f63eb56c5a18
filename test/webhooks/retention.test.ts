import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pruneAll, pruners } from "../../src/privacy/pruning.ts";
import type { Receiver } from "../helpers/receiver.ts";
import { startWithReceiver, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("webhook attempt logs are pruned by age (WEBHOOK_ATTEMPT_RETENTION_DAYS)", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let stop: () => Promise<void>;
  before(async () => {
    ({ service, group, receiver, stop } = await startWithReceiver({ "/hook": () => 200 }));
  });
  after(() => stop());

  it("deletes attempts older than the retention in batches, keeps newer ones and every delivery", async () => {
    const id = (await service.createPayment(group, { webhookUrl: `${receiver.url}/hook` })).body.data
      .transactionId;
    await service.api(group, "DELETE", `/api/v1/payments/${id}`);
    const [delivery] = await waitFor(async () => {
      const rows = await service.services.db.query<{ id: string; state: string }>(
        "SELECT d.id, d.state FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.payment_id = $1",
        [id],
      );
      return rows[0]?.state === "succeeded" ? rows : undefined;
    });
    assert.ok(delivery);
    // 12,000 old attempts (more than one batch), and the real, recent one.
    await service.services.db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
       SELECT $1, 1 + n, now() - interval '40 days' - make_interval(secs => n), 500, 3 FROM generate_series(1, 12000) AS n`,
      [delivery.id],
    );
    const count = async () =>
      (
        await service.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1",
          [delivery.id],
        )
      )[0]?.n;
    assert.equal(await count(), 12001);
    const attempts = pruners({
      webhookAttemptRetentionDays: 30,
      eventRetentionDays: 0,
      auditRetentionDays: 0,
    }).filter((pruner) => pruner.name === "webhook attempts");
    assert.deepEqual(await pruneAll(service.services.db, attempts, new Date(), 0), {
      "webhook attempts": 12000,
    });
    assert.equal(await count(), 1, "the recent attempt stays");
    assert.deepEqual(
      await pruneAll(service.services.db, attempts, new Date(), 0),
      {},
      "nothing left to prune",
    );
    const events = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
    assert.equal(events[0].deliveries[0].state, "succeeded", "the delivery itself is kept");
  });
});
