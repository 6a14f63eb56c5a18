// What the service keeps, and for how long (docs/operations.md, "Data lifetime"): events with their
// deliveries, attempts and receipts, processor events, audit entries and what expires by itself
// are pruned; customers of long-settled payments are erased (PII_RETENTION_DAYS); the rest stays.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pruneAll, pruners } from "../../src/privacy/pruning.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("retention", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Old shop" });
  });
  after(() => service.close());

  const db = () => service.services.db;
  const count = async (sql: string, params: unknown[] = []) =>
    (await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]?.n ?? 0;

  const paidPayment = async (email: string) => {
    const created = (await service.createPayment(group, { customerEmail: email })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () =>
      (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data.status ===
      "succeeded"
        ? true
        : undefined,
    );
    return created.transactionId as string;
  };

  it("prunes events (with deliveries, attempts and receipts), processor events, audit entries and expired records past their retention", async () => {
    const paymentId = await paidPayment("old-events@example.com");
    // 1,500 events of 100 days ago (more than a batch), each with a delivery, an attempt and a receipt.
    await db().query(
      `WITH events AS (
         INSERT INTO webhook_events (id, payment_id, group_id, event, status, payload, created_at)
         SELECT gen_random_uuid(), $1, $2, 'payment.completed', 'succeeded', '{}'::json, now() - interval '100 days' - make_interval(secs => n)
         FROM generate_series(1, 1500) n RETURNING id, created_at
       ), deliveries AS (
         INSERT INTO webhook_deliveries (id, event_id, event_created_at, url, destination, state, created_at)
         SELECT gen_random_uuid(), id, created_at, 'https://hooks.example.com/h', 'hooks.example.com:443', 'succeeded', created_at FROM events
         RETURNING id, created_at
       ), attempts AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
         SELECT id, 1, created_at, 200, 5 FROM deliveries
       )
       INSERT INTO receipt_emails (event_id, payment_id, group_id, kind, recipient, amount, currency, state, created_at)
       SELECT id, $1, $2, 'payment', NULL, 100, 'usd', 'sent', created_at FROM events`,
      [paymentId, group.groupId],
    );
    await db().query(
      `INSERT INTO processor_events (processor, id, type, received_at)
       SELECT 'stripe', 'evt_old_' || n, 'checkout.session.completed', now() - interval '100 days' FROM generate_series(1, 20) n`,
    );
    await db().query(
      `INSERT INTO audit_log (group_id, actor, action, created_at)
       SELECT $1, 'admin-token', 'old.thing', now() - interval '500 days' FROM generate_series(1, 30)`,
      [group.groupId],
    );
    await db().query(
      `INSERT INTO idempotency_keys (group_id, scope, key, request_hash, created_at)
       VALUES ($1, 'create', 'two-days-old', 'x', now() - interval '2 days'),
              ($1, 'create', 'fresh', 'x', now()),
              ($1, 'create', 'old-but-held', 'x', now() - interval '2 days')`,
      [group.groupId],
    );
    await db().query(
      "UPDATE idempotency_keys SET locked_until = now() + interval '1 minute' WHERE key = 'old-but-held'",
    );
    await db().query(
      `INSERT INTO password_check_budgets (key, window_started, used) VALUES
         ('address:203.0.113.9', now() - interval '3 days', 4), ('address:203.0.113.10', now(), 1)`,
    );
    await db().query(
      `INSERT INTO sandbox_objects (id, kind, body, updated_at) VALUES ('session cs_old', 'session', '{}', now() - interval '100 days')`,
    );
    const recentEvents = await count("webhook_events WHERE created_at > now() - interval '1 day'");
    assert.ok(recentEvents > 0);

    const list = pruners({
      webhookAttemptRetentionDays: 90,
      eventRetentionDays: 90,
      auditRetentionDays: 400,
    });
    const pruned = await pruneAll(db(), list, new Date(), 0);
    assert.equal(pruned["webhook events"], 1500);
    assert.equal(pruned["webhook attempts"], 1500);
    assert.equal(pruned.receipts, 1500);
    assert.equal(pruned["processor events"], 20);
    assert.equal(pruned["audit entries"], 30);
    assert.equal(pruned["idempotency keys"], 1);
    assert.equal(pruned["sandbox objects"], 1);
    assert.equal(pruned["expired sign-in records"], 1);
    assert.equal(await count("webhook_events WHERE created_at < now() - interval '90 days'"), 0);
    assert.equal(await count("webhook_deliveries WHERE created_at < now() - interval '90 days'"), 0);
    assert.equal(await count("webhook_attempts WHERE attempted_at < now() - interval '90 days'"), 0);
    assert.equal(await count("receipt_emails WHERE payment_id = $1", [paymentId]), 0);
    assert.equal(
      await count("webhook_events WHERE created_at > now() - interval '1 day'"),
      recentEvents,
      "recent events stay",
    );
    assert.equal(await count("idempotency_keys WHERE key IN ('fresh', 'old-but-held')"), 2);
    assert.equal(await count("audit_log WHERE action = 'old.thing'"), 0);
    assert.ok((await count("audit_log")) > 0, "recent audit entries stay");
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments/${paymentId}`)).body.data.status,
      "succeeded",
    );
    assert.deepEqual(await pruneAll(db(), list, new Date(), 0), {}, "a second run finds nothing");
    assert.deepEqual(
      pruners({ webhookAttemptRetentionDays: 0, eventRetentionDays: 0, auditRetentionDays: 0 }).map(
        (p) => p.name,
      ),
      ["idempotency keys", "expired sign-in records"],
      "0 keeps events, attempts and audit entries forever; what expires by itself still goes",
    );
  });

  it("PII_RETENTION_DAYS erases settled payments only: never an open dispute, a pending refund or an open payment", async () => {
    const settled = await paidPayment("settled@example.com");
    const disputed = await paidPayment("disputed@example.com");
    const refunding = await paidPayment("refunding@example.com");
    const recent = await paidPayment("recent@example.com");
    const open = (await service.createPayment(group, { customerEmail: "open@example.com" })).body.data
      .transactionId as string;
    await db().query("UPDATE payments SET status = 'disputed' WHERE id = $1", [disputed]);
    await db().query(
      `INSERT INTO refunds (id, payment_id, group_id, amount, currency, status, requested_by)
       VALUES (gen_random_uuid(), $1, $2, 100, 'usd', 'pending', 'test')`,
      [refunding, group.groupId],
    );
    await db().query("UPDATE payments SET updated_at = now() - interval '40 days' WHERE id = ANY($1)", [
      [settled, disputed, refunding, open],
    ]);
    assert.equal(await service.services.privacy.erasure.eraseSettledBefore(30, new Date()), 1);
    const email = async (id: string) =>
      (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data.customerEmail as
        | string
        | undefined;
    assert.equal(await email(settled), undefined);
    assert.equal(await email(disputed), "disputed@example.com");
    assert.equal(await email(refunding), "refunding@example.com");
    assert.equal(await email(recent), "recent@example.com");
    assert.equal(await email(open), "open@example.com");
    const [audit] = await db().query<{
      group_id: string | null;
      detail: { payments: number; retentionDays: number };
    }>("SELECT group_id, detail FROM audit_log WHERE action = 'retention.erased'");
    assert.deepEqual(audit, { group_id: null, detail: { payments: 1, retentionDays: 30 } });
    assert.equal(await service.services.privacy.erasure.eraseSettledBefore(30, new Date()), 0);
    assert.equal(
      await count("audit_log WHERE action = 'retention.erased'"),
      1,
      "a run without work is not audited",
    );
  });
});
