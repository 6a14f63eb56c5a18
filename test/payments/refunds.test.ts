import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Receiver } from "../helpers/receiver.ts";
import { startWithReceiver, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("refunds", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let stop: () => Promise<void>;
  before(async () => {
    ({ receiver, service, group, stop } = await startWithReceiver({ "/hook": () => 200 }));
  });
  after(() => stop());

  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const refund = (id: string, body?: unknown, headers: Record<string, string> = {}) =>
    service.api(group, "POST", `/api/v1/payments/${id}/refunds`, body ?? {}, headers);
  const until = (id: string, check: (payment: { status: string; amountRefunded: number }) => boolean) =>
    waitFor(async () => {
      const payment = await read(id);
      return check(payment) ? payment : undefined;
    });
  /** A payment paid on the sandbox, with a webhook to the receiver. */
  const paid = async (amount: number, card?: string) => {
    const created = (await service.createPayment(group, { amount, webhookUrl: `${receiver.url}/hook` })).body
      .data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, {
      outcome: "succeeded",
      ...(card && { card }),
    });
    return until(created.transactionId, (payment) => payment.status === "succeeded");
  };

  it("refunds in part, then the rest; the payment, the list and the webhooks follow", async () => {
    const payment = await paid(1000);
    assert.equal(payment.amountRefunded, 0);
    const partial = await refund(payment.id, { amount: 400, reason: "requested_by_customer" });
    assert.equal(partial.status, 201, JSON.stringify(partial.body));
    assert.deepEqual(
      { ...partial.body.data, refundId: undefined, createdAt: undefined },
      {
        refundId: undefined,
        transactionId: payment.id,
        amount: 400,
        currency: "usd",
        status: "succeeded",
        reason: "requested_by_customer",
        createdAt: undefined,
      },
    );
    await until(payment.id, (p) => p.status === "partially_refunded" && p.amountRefunded === 400);
    const rest = await refund(payment.id);
    assert.equal(rest.status, 201);
    assert.equal(rest.body.data.amount, 600);
    assert.equal(rest.body.data.reason, null);
    await until(payment.id, (p) => p.status === "refunded" && p.amountRefunded === 1000);
    const listed = (await service.api(group, "GET", `/api/v1/payments/${payment.id}/refunds`)).body.data
      .refunds;
    assert.deepEqual(
      listed.map((r: { amount: number; status: string }) => [r.amount, r.status]),
      [
        [400, "succeeded"],
        [600, "succeeded"],
      ],
    );
    const hooks = await waitFor(async () => {
      const bodies = receiver
        .at("/hook")
        .map((request) => JSON.parse(request.body))
        .filter((body) => body.transactionId === payment.id && body.event === "payment.refunded");
      return bodies.length === 2 ? bodies : undefined;
    });
    assert.deepEqual(
      hooks.map((body: { status: string; amountRefunded: number }) => [body.status, body.amountRefunded]),
      [
        ["partially_refunded", 400],
        ["refunded", 1000],
      ],
    );
    const over = await refund(payment.id, { amount: 1 });
    assert.equal(over.status, 400);
    assert.equal(over.body.error.code, "REFUND_NOT_ALLOWED");
  });

  it("refuses more than remains, the wrong status, bad bodies and other groups' payments", async () => {
    const payment = await paid(500);
    const tooMuch = await refund(payment.id, { amount: 501 });
    assert.deepEqual([tooMuch.status, tooMuch.body.error.code], [400, "REFUND_NOT_ALLOWED"]);
    const processing = (await service.createPayment(group)).body.data;
    const early = await refund(processing.transactionId, { amount: 1 });
    assert.deepEqual([early.status, early.body.error.code], [400, "REFUND_NOT_ALLOWED"]);
    for (const body of [
      { amount: 0 },
      { amount: -1 },
      { amount: 1.5 },
      { amount: "5" },
      { reason: "other" },
      { reason: null },
    ]) {
      const bad = await refund(payment.id, body);
      assert.deepEqual([bad.status, bad.body.error.code], [400, "INVALID_REQUEST"], JSON.stringify(body));
    }
    const other = await service.createGroup({ name: "Other" });
    const theirs = await service.api(other, "POST", `/api/v1/payments/${payment.id}/refunds`, { amount: 1 });
    assert.deepEqual([theirs.status, theirs.body.error.code], [404, "NOT_FOUND"]);
    assert.equal((await service.api(other, "GET", `/api/v1/payments/${payment.id}/refunds`)).status, 404);
    assert.equal((await read(payment.id)).amountRefunded, 0, "nothing was refunded");
  });

  it("replays a refund for the same Idempotency-Key and body, and refuses another body", async () => {
    const payment = await paid(800);
    const key = { "idempotency-key": "refund-order-1" };
    const first = await refund(payment.id, { amount: 100 }, key);
    const again = await refund(payment.id, { amount: 100 }, key);
    assert.equal(first.status, 201);
    assert.deepEqual(again.body, first.body);
    const other = await refund(payment.id, { amount: 200 }, key);
    assert.deepEqual([other.status, other.body.error.code], [409, "IDEMPOTENCY_CONFLICT"]);
    const listed = (await service.api(group, "GET", `/api/v1/payments/${payment.id}/refunds`)).body.data
      .refunds;
    assert.equal(listed.length, 1);
  });

  it("50 concurrent 1-cent refunds on a 30-cent payment: exactly 30 succeed", async () => {
    const payment = await paid(30);
    const answers = await Promise.all(Array.from({ length: 50 }, () => refund(payment.id, { amount: 1 })));
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 201).length, 30);
    assert.equal(statuses.filter((status) => status === 400).length, 20);
    await until(payment.id, (p) => p.status === "refunded" && p.amountRefunded === 30);
  });

  it("a refund the processor refuses answers 502 and changes nothing", async () => {
    const payment = await paid(900, "4000000000005126");
    const refused = await refund(payment.id, { amount: 300 });
    assert.deepEqual([refused.status, refused.body.error.code], [502, "PROCESSOR_ERROR"]);
    const after = await read(payment.id);
    assert.deepEqual([after.status, after.amountRefunded], ["succeeded", 0]);
    const listed = (await service.api(group, "GET", `/api/v1/payments/${payment.id}/refunds`)).body.data
      .refunds;
    assert.deepEqual(
      listed.map((r: { amount: number; status: string }) => [r.amount, r.status]),
      [[300, "failed"]],
    );
    // The failed refund gave its amount back: the whole payment can still be asked for.
    assert.equal((await refund(payment.id, { amount: 900 })).status, 502);
  });

  it("a refund made at the processor is learnt from its event and listed", async () => {
    const payment = await paid(700);
    await service.sandboxPost(`/sandbox/payment_intents/${payment.processorPaymentIntentId}/refund`, {
      amount: 300,
    });
    await until(payment.id, (p) => p.status === "partially_refunded" && p.amountRefunded === 300);
    const listed = (await service.api(group, "GET", `/api/v1/payments/${payment.id}/refunds`)).body.data
      .refunds;
    assert.deepEqual(
      listed.map((r: { amount: number; status: string }) => [r.amount, r.status]),
      [[300, "succeeded"]],
    );
    const tooMuch = await refund(payment.id, { amount: 401 });
    assert.equal(tooMuch.status, 400, "what the processor refunded is not refunded again");
    assert.equal((await refund(payment.id)).body.data.amount, 400);
  });
});
