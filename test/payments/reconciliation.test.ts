// Reconciliation runs against the processor. Events lost on the way (a payment, a
// refund, a dispute) are found and repaired through the normal event path, with their webhooks;
// what the processor cannot prove is listed for the operator; a second run changes nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Receiver } from "../helpers/receiver.ts";
import { startWithReceiver, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("reconciliation against the processor", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let stop: () => Promise<void>;
  before(async () => {
    ({ receiver, service, group, stop } = await startWithReceiver({ "/hook": () => 200 }));
  });
  after(() => stop());

  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const until = (id: string, check: (payment: { status: string; amountRefunded: number }) => boolean) =>
    waitFor(async () => {
      const payment = await read(id);
      return check(payment) ? payment : undefined;
    });
  const created = async (amount = 1000) =>
    (await service.createPayment(group, { amount, webhookUrl: `${receiver.url}/hook` })).body.data;
  const paid = async (amount = 1000) => {
    const payment = await created(amount);
    await service.sandboxPost(`/sandbox/sessions/${payment.sessionId}/complete`, { outcome: "succeeded" });
    return until(payment.transactionId, (p) => p.status === "succeeded");
  };
  /** Starts a run over the last hour and waits for its figures. */
  const run = async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const started = await service.admin("POST", "/admin/v1/reconciliation/runs", { since });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    return waitFor(async () => {
      const current = await service.admin("GET", `/admin/v1/reconciliation/runs/${started.body.data.runId}`);
      assert.equal(current.status, 200);
      return current.body.data.status === "finished" ? current.body.data : undefined;
    });
  };
  const hooksFor = (id: string, event: string) =>
    receiver
      .at("/hook")
      .map((request) => JSON.parse(request.body))
      .filter((body) => body.transactionId === id && body.event === event);

  it("repairs a payment, a refund and a dispute whose events were lost, and a second run changes nothing", async () => {
    // Paid at the processor, event lost.
    const unseenPayment = await created();
    await service.sandboxPost(`/sandbox/sessions/${unseenPayment.sessionId}/complete`, {
      outcome: "succeeded",
      silent: true,
    });
    // Refunded at the processor, event lost.
    const unseenRefund = await paid();
    await service.sandboxPost(`/sandbox/payment_intents/${unseenRefund.processorPaymentIntentId}/refund`, {
      amount: 300,
      silent: true,
    });
    // Disputed at the processor, event lost.
    const unseenDispute = await paid();
    const dispute = await service.sandboxPost(
      `/sandbox/payment_intents/${unseenDispute.processorPaymentIntentId}/dispute`,
      { silent: true },
    );
    assert.equal(dispute.status, 200, JSON.stringify(dispute.body));
    assert.equal((await read(unseenPayment.transactionId)).status, "processing");
    assert.equal((await read(unseenRefund.id)).amountRefunded, 0);
    assert.equal((await read(unseenDispute.id)).status, "succeeded");

    const first = await run();
    assert.ok(first.checked >= 3, JSON.stringify(first));
    assert.ok(first.repaired >= 3, JSON.stringify(first));
    assert.equal(first.drifts, 0, JSON.stringify(first));

    const repairedPayment = await read(unseenPayment.transactionId);
    assert.equal(repairedPayment.status, "succeeded");
    assert.match(repairedPayment.processorPaymentIntentId, /^pi_/);
    const repairedRefund = await read(unseenRefund.id);
    assert.deepEqual([repairedRefund.status, repairedRefund.amountRefunded], ["partially_refunded", 300]);
    const listed = (await service.api(group, "GET", `/api/v1/payments/${unseenRefund.id}/refunds`)).body.data
      .refunds;
    assert.deepEqual(
      listed.map((r: { amount: number; status: string }) => [r.amount, r.status]),
      [[300, "succeeded"]],
    );
    assert.equal((await read(unseenDispute.id)).status, "disputed");
    // Through the normal event path: the merchant hears of each repair by webhook.
    await waitFor(async () =>
      hooksFor(unseenPayment.transactionId, "payment.completed").length === 1 ? true : undefined,
    );
    await waitFor(async () =>
      hooksFor(unseenRefund.id, "payment.refunded").length === 1 ? true : undefined,
    );
    await waitFor(async () =>
      hooksFor(unseenDispute.id, "payment.disputed").length === 1 ? true : undefined,
    );

    const second = await run();
    assert.equal(second.repaired, 0, JSON.stringify(second));
    assert.equal(second.drifts, 0, JSON.stringify(second));
    assert.equal(second.checked, first.checked);
    assert.equal(hooksFor(unseenPayment.transactionId, "payment.completed").length, 1, "no webhook twice");

    // A dispute closed at the processor, event lost: the next run applies the outcome.
    await service.sandboxPost(`/sandbox/disputes/${dispute.body.id}/close`, {
      outcome: "lost",
      silent: true,
    });
    const third = await run();
    assert.equal(third.repaired, 1, JSON.stringify(third));
    assert.equal((await read(unseenDispute.id)).status, "dispute_lost");
  });

  it("settles a pending refund from the processor's list, and lists what it cannot prove", async () => {
    const payment = await paid(1000);
    // Our books say more was refunded than the processor did: nothing the processor proves fixes that.
    await service.services.db.query("UPDATE payments SET refunded_amount = 400 WHERE id = $1", [payment.id]);
    const outcome = await run();
    assert.ok(outcome.drifts >= 1, JSON.stringify(outcome));
    const queue = (await service.admin("GET", "/admin/v1/reconciliation")).body.data;
    const drift = queue.find(
      (item: { kind: string; transactionId: string }) =>
        item.kind === "drift" && item.transactionId === payment.id,
    );
    assert.ok(drift, JSON.stringify(queue));
    assert.match(drift.reason, /refunded 0, we recorded 400/);
    // Listed once, however many runs see it.
    await run();
    const again = (await service.admin("GET", "/admin/v1/reconciliation")).body.data.filter(
      (item: { kind: string; transactionId: string }) =>
        item.kind === "drift" && item.transactionId === payment.id,
    );
    assert.equal(again.length, 1);
  });

  it("checks every payment of the window once across batches, ties in updated_at included", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) ids.push((await created()).transactionId);
    // 150 of them changed in one statement share its now(): a tie that spans the batch of 100.
    await service.services.db.query(
      "UPDATE payments SET updated_at = date_trunc('second', now()) - interval '1 minute' WHERE id = ANY($1::uuid[])",
      [ids.slice(40, 190)],
    );
    const [inWindow] = await service.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM payments
       WHERE updated_at >= now() - interval '1 hour' AND processor_checkout_id IS NOT NULL`,
    );
    const figures = await run();
    assert.ok(Number(inWindow?.n) >= 230);
    assert.equal(figures.checked, Number(inWindow?.n), "each payment of the window once");
  });

  it("refuses a bad window and an unknown run", async () => {
    const bad = await service.admin("POST", "/admin/v1/reconciliation/runs", { since: "yesterday" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "INVALID_REQUEST");
    const backwards = await service.admin("POST", "/admin/v1/reconciliation/runs", {
      since: "2026-01-02T00:00:00Z",
      until: "2026-01-01T00:00:00Z",
    });
    assert.equal(backwards.status, 400);
    const unknown = await service.admin(
      "GET",
      "/admin/v1/reconciliation/runs/00000000-0000-4000-8000-000000000000",
    );
    assert.equal(unknown.status, 404);
    const malformed = await service.admin("GET", "/admin/v1/reconciliation/runs/nope");
    assert.equal(malformed.status, 404);
    const noToken = await service.request("POST", "/admin/v1/reconciliation/runs", {
      body: { since: "2026-01-01T00:00:00Z" },
    });
    assert.equal(noToken.status, 401);
  });
});

describe("paid after cancel", () => {
  let service: TestService;
  let group: TestGroup;
  let stop: () => Promise<void>;
  before(async () => {
    ({ service, group, stop } = await startWithReceiver({}));
  });
  after(() => stop());

  it("is shown to the merchant, and the operator refunds it in full, once", async () => {
    const created = (await service.createPayment(group, { amount: 2500 })).body.data;
    assert.equal(
      (await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`)).status,
      200,
    );
    const fresh = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
    assert.equal(fresh.paidAfterCancel, false);
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const payment = await waitFor(async () => {
      const p = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
      return p.paidAfterCancel ? p : undefined;
    });
    assert.equal(payment.status, "cancelled");
    // The merchant cannot refund a cancelled payment; the operator can.
    const byMerchant = await service.api(
      group,
      "POST",
      `/api/v1/payments/${created.transactionId}/refunds`,
      {},
    );
    assert.equal(byMerchant.status, 400);
    assert.equal(byMerchant.body.error.code, "REFUND_NOT_ALLOWED");
    const byOperator = await service.admin("POST", `/admin/v1/payments/${created.transactionId}/refunds`, {});
    assert.equal(byOperator.status, 201, JSON.stringify(byOperator.body));
    assert.equal(byOperator.body.data.amount, 2500);
    assert.equal(byOperator.body.data.status, "succeeded");
    const twice = await service.admin("POST", `/admin/v1/payments/${created.transactionId}/refunds`, {});
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.code, "REFUND_NOT_ALLOWED");
    const after = await waitFor(async () => {
      const p = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
      return p.amountRefunded === 2500 ? p : undefined;
    });
    assert.equal(after.status, "cancelled");
    const atProcessor = await service.processorClient().refunds.list({
      payment_intent: after.processorPaymentIntentId,
    });
    assert.equal(atProcessor.data.length, 1);
    // The operator's refund of the group's payment is on the group's own log.
    const [entry] = await service.services.db.query<{ group_id: string; actor: string }>(
      "SELECT group_id, actor FROM audit_log WHERE action = 'payment.refunded' AND target = $1",
      [created.transactionId],
    );
    assert.deepEqual(entry, { group_id: group.groupId, actor: "admin-token" });
    const unknown = await service.admin(
      "POST",
      "/admin/v1/payments/00000000-0000-4000-8000-000000000000/refunds",
      {},
    );
    assert.equal(unknown.status, 404);
  });
});
