// Square through its official SDK against the sandbox's Square emulator, end to end,
// and every money call counted at the emulator, not only in our tables.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { SquarePayment } from "../../src/sandbox/state.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("payments through Square", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "60" });
    group = await service.createGroup({ name: "Square shop" });
    const routed = await service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, {
      routes: [{ processors: ["square"] }],
    });
    assert.equal(routed.status, 200);
  });
  after(() => service.close());

  const sandbox = () => {
    if (!service.sandbox) throw new Error("the sandbox runs in these tests");
    return service.sandbox;
  };
  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const until = (id: string, check: (payment: Record<string, unknown>) => boolean, what: string) =>
    waitFor(
      async () => {
        const payment = await read(id);
        return check(payment) ? payment : undefined;
      },
      10000,
      what,
    );
  const squareCalls = (method: string, path: string) =>
    sandbox().state.requests.filter(
      (request) =>
        request.processor === "square" && request.method === method && request.path.startsWith(path),
    );
  const paymentAtSquare = (paymentId: string): SquarePayment => {
    const payment = sandbox().state.squarePayments.get(paymentId);
    assert.ok(payment, `Square has payment ${paymentId}`);
    return payment;
  };
  const createPaid = async (amount = 2500) => {
    const created = (await service.createPayment(group, { amount, description: "Two mugs" })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await until(created.transactionId, (payment) => payment.status === "succeeded", "paid");
    return { created, paid };
  };

  it("opens a payment link whose order carries our transaction id, one line item and our idempotency key", async () => {
    const response = await service.createPayment(group, { amount: 1234, description: "A teapot" });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const created = response.body.data;
    const payment = await read(created.transactionId);
    assert.equal(payment.processor, "square");
    const link = sandbox().state.squareLinks.get(created.sessionId);
    assert.ok(link, "the session id is the Square payment link's id");
    const order = sandbox().state.squareOrders.get(link.order_id);
    assert.equal(order?.reference_id, created.transactionId);
    assert.deepEqual(
      order?.line_items.map((line) => [line.name, line.quantity, line.base_price_money]),
      [["A teapot", "1", { amount: 1234, currency: "USD" }]],
    );
    assert.equal(link.pre_populated_data.buyer_email, "jane@example.com");
    assert.ok(link.checkout_options.redirect_url.startsWith(`${service.url}/return/`));
    const [call] = squareCalls("POST", "/v2/online-checkout/payment-links");
    assert.equal(call?.idempotencyKey, `checkout-${created.transactionId}`);
    // The customer's link leads to the sandbox's page for this Square link, with its line item.
    const forwarded = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(forwarded.headers.get("location"), `${service.sandboxUrl}/checkout/${created.sessionId}`);
    const page = await (await fetch(forwarded.headers.get("location") as string)).text();
    assert.match(page, /A teapot/);
    assert.match(page, /12\.34 USD/);
    assert.match(page, /Back to the shop/);
  });

  it("pays on the test page, and the customer's return finds the payment paid", async () => {
    const created = (await service.createPayment(group)).body.data;
    const paid = await fetch(`${service.sandboxUrl}/checkout/${created.sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ card: "4242424242424242" }).toString(),
      redirect: "manual",
    });
    assert.equal(paid.status, 303);
    const back = await service.request("GET", new URL(paid.headers.get("location") as string).pathname);
    assert.equal(back.headers.get("location"), `https://shop.example.com/thanks/${created.transactionId}`);
    const payment = await read(created.transactionId);
    assert.equal(payment.status, "succeeded");
    assert.equal(paymentAtSquare(payment.processorPaymentIntentId).status, "COMPLETED");
  });

  it("sends a customer who comes back without paying to the cancel URL (Square has none of its own)", async () => {
    const created = (await service.createPayment(group)).body.data;
    const link = sandbox().state.squareLinks.get(created.sessionId);
    const back = await service.request(
      "GET",
      new URL(link?.checkout_options.redirect_url as string).pathname,
    );
    assert.equal(back.headers.get("location"), "https://shop.example.com/cart");
    assert.equal((await read(created.transactionId)).status, "processing");
  });

  it("applies Square's signed events: payment completed, refund, dispute opened and won", async () => {
    const { created, paid } = await createPaid();
    const paymentId = paid.processorPaymentIntentId as string;
    await service.sandboxPost(`/sandbox/payment_intents/${paymentId}/refund`, { amount: 500 });
    await until(created.transactionId, (payment) => payment.amountRefunded === 500, "refunded at Square");
    const dispute = (await service.sandboxPost(`/sandbox/payment_intents/${paymentId}/dispute`)).body;
    await until(created.transactionId, (payment) => payment.status === "disputed", "disputed");
    await service.sandboxPost(`/sandbox/disputes/${dispute.id}/close`, { outcome: "won" });
    await until(created.transactionId, (payment) => payment.status === "dispute_won", "dispute won");
    const events = await service.services.db.query<{ processor: string; type: string }>(
      "SELECT processor, type FROM processor_events WHERE payment_id = $1 ORDER BY received_at",
      [created.transactionId],
    );
    assert.ok(events.every((event) => event.processor === "square"));
    assert.ok(events.some((event) => event.type === "dispute.state.updated"));
  });

  it("refunds through Square with our idempotency key, carried out once however often it is asked", async () => {
    const { created, paid } = await createPaid(3000);
    const refund = await service.api(group, "POST", `/api/v1/payments/${created.transactionId}/refunds`, {
      amount: 1000,
      reason: "requested_by_customer",
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.data.status, "succeeded");
    const atSquare = [...sandbox().state.squareRefunds.values()].filter(
      (each) => each.payment_id === paid.processorPaymentIntentId,
    );
    assert.deepEqual(
      atSquare.map((each) => [each.amount_money.amount, each.status, each.reason]),
      [[1000, "COMPLETED", "Requested by customer"]],
    );
    assert.equal(paymentAtSquare(paid.processorPaymentIntentId).refunded_money?.amount, 1000);
    // The same refund asked again (a lost answer) is answered by Square's idempotency, not repeated.
    const [call] = squareCalls("POST", "/v2/refunds").filter(
      (each) => (each.body as { payment_id?: string }).payment_id === paid.processorPaymentIntentId,
    );
    assert.ok(call?.idempotencyKey);
    const again = await fetch(`${service.sandboxUrl}/v2/refunds`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: call ? `Bearer ${await squareToken()}` : "",
      },
      body: JSON.stringify(call?.body),
    });
    assert.equal(again.status, 200);
    assert.equal(
      [...sandbox().state.squareRefunds.values()].filter(
        (each) => each.payment_id === paid.processorPaymentIntentId,
      ).length,
      1,
    );
    await until(created.transactionId, (payment) => payment.amountRefunded === 1000, "refund applied once");
  });

  it("a refund Square rejects is refused, and no money moves", async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, {
      outcome: "succeeded",
      card: "4000000000005126",
    });
    await until(created.transactionId, (payment) => payment.status === "succeeded", "paid");
    const refund = await service.api(group, "POST", `/api/v1/payments/${created.transactionId}/refunds`, {
      amount: 100,
    });
    assert.equal(refund.status, 502);
    assert.equal(refund.body.error.code, "PROCESSOR_ERROR");
    const payment = await read(created.transactionId);
    assert.equal(paymentAtSquare(payment.processorPaymentIntentId).refunded_money, undefined);
    assert.equal(payment.amountRefunded, 0);
  });

  it("deletes the link at the payment's expiry, which cancels its order at Square", async () => {
    const created = (await service.createPayment(group)).body.data;
    const orderId = sandbox().state.squareLinks.get(created.sessionId)?.order_id as string;
    await service.services.db.query(
      "UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = $1",
      [created.transactionId],
    );
    await service.services.payments.expiry.expireDue();
    assert.equal((await read(created.transactionId)).status, "expired");
    assert.equal(sandbox().state.squareLinks.has(created.sessionId), false);
    assert.equal(sandbox().state.squareOrders.get(orderId)?.state, "CANCELED");
    assert.equal(squareCalls("DELETE", `/v2/online-checkout/payment-links/${created.sessionId}`).length, 1);
  });

  it("a payment completed before its expiry wins over the deletion", async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, {
      outcome: "succeeded",
      silent: true,
    });
    await service.services.db.query(
      "UPDATE payments SET expires_at = now() - interval '1 second' WHERE id = $1",
      [created.transactionId],
    );
    await service.services.payments.expiry.expireDue();
    assert.equal((await read(created.transactionId)).status, "succeeded");
    assert.equal(sandbox().state.squareLinks.has(created.sessionId), true, "a paid link is not deleted");
  });

  it("a reconciliation run finds what Square did while its events were lost", async () => {
    const created = (await service.createPayment(group, { amount: 4000 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, {
      outcome: "succeeded",
      silent: true,
    });
    const paymentId = sandbox().simulationOf(created.sessionId)?.paymentOf(created.sessionId) as string;
    await service.sandboxPost(`/sandbox/payment_intents/${paymentId}/refund`, { amount: 1500, silent: true });
    const lookups = squareCalls("GET", `/v2/payments/${paymentId}`).length;
    const run = await service.admin("POST", "/admin/v1/reconciliation/runs", {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    assert.equal(run.status, 202);
    const finished = await waitFor(async () => {
      const answer = await service.admin("GET", `/admin/v1/reconciliation/runs/${run.body.data.runId}`);
      return answer.body.data.status === "finished" ? answer.body.data : undefined;
    });
    assert.ok(finished.repaired >= 2, JSON.stringify(finished));
    const payment = await read(created.transactionId);
    assert.equal(payment.status, "partially_refunded");
    assert.equal(payment.amountRefunded, 1500);
    assert.ok(squareCalls("GET", `/v2/payments/${paymentId}`).length > lookups, "asked Square itself");
  });

  it("`checkout trigger` drives every event through Square for a group routed there", async () => {
    const expected: Record<string, string> = {
      "payment.completed": "succeeded",
      "payment.failed": "failed",
      "payment.expired": "expired",
      "payment.refunded": "refunded",
      "payment.disputed": "disputed",
    };
    for (const [event, status] of Object.entries(expected)) {
      const triggered = await service.api(group, "POST", "/api/v1/sandbox/trigger", { event });
      assert.equal(triggered.status, 202, JSON.stringify(triggered.body));
      const id = triggered.body.data.transactionId;
      const payment = await until(id, (each) => each.status === status, `${event} → ${status}`);
      assert.equal(payment.processor, "square");
    }
  });

  it("refuses an event whose signature does not cover the body and the notification URL", async () => {
    const body = JSON.stringify({ event_id: "e1", type: "payment.updated", data: { object: {} } });
    const wrongKey = createHmac("sha256", "not-the-key")
      .update(`${service.url}/processor/webhooks/square`)
      .update(body)
      .digest("base64");
    for (const signature of [wrongKey, "", "bm90IGEgc2lnbmF0dXJl"]) {
      const answer = await service.request("POST", "/processor/webhooks/square", {
        rawBody: body,
        headers: { "content-type": "application/json", "x-square-hmacsha256-signature": signature },
      });
      assert.equal(answer.status, 400);
    }
    const rows = await service.services.db.query("SELECT 1 FROM processor_events WHERE id = 'e1'");
    assert.equal(rows.length, 0);
  });

  const squareToken = async () => {
    const { sandboxAccounts } = await import("../../src/server/processors.ts");
    return (await sandboxAccounts(service.config, service.services.db, service.services.box)).square
      ?.SQUARE_ACCESS_TOKEN;
  };
});
