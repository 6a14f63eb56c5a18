import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Stripe from "stripe";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

/** Every status end to end: the real SDK against the sandbox, events over real HTTP. */
describe("payments through the processor", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  const read = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  const until = (id: string, status: string) =>
    waitFor(
      async () => {
        const payment = await read(id);
        return payment.status === status ? payment : undefined;
      },
      10000,
      `payment ${status}`,
    );
  const sandboxPost = (path: string, body?: unknown) => service.sandboxPost(path, body);
  const statusChanges = async (id: string) =>
    (
      await service.services.db.query<{ to_status: string }>(
        "SELECT to_status FROM payment_status_changes WHERE payment_id = $1 ORDER BY id",
        [id],
      )
    ).map((row) => row.to_status);
  const payOnPage = async (sessionId: string, card: string) =>
    fetch(`${service.sandboxUrl}/checkout/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ card }).toString(),
      redirect: "manual",
    });

  it("pays: link → processor page → card → return → merchant success URL, payment succeeded", async () => {
    const created = (await service.createPayment(group)).body.data;
    const link = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(link.status, 303);
    const processorPage = link.headers.get("location") as string;
    assert.equal(
      processorPage,
      `${service.sandboxUrl?.replace("127.0.0.1", "127.0.0.1")}/checkout/${created.sessionId}`,
    );
    assert.equal(link.headers.get("x-frame-options"), "DENY");
    const page = await fetch(processorPage);
    assert.match(await page.text(), /19\.99 USD/);

    const paid = await payOnPage(created.sessionId, "4242 4242 4242 4242");
    assert.equal(paid.status, 303);
    const returnUrl = paid.headers.get("location") as string;
    assert.ok(returnUrl.startsWith(`${service.url}/return/`));
    const back = await service.request("GET", new URL(returnUrl).pathname);
    assert.equal(back.status, 303);
    assert.equal(back.headers.get("location"), `https://shop.example.com/thanks/${created.transactionId}`);

    // The return asked the processor, so the merchant's success page already reads succeeded.
    const payment = await read(created.transactionId);
    assert.equal(payment.status, "succeeded");
    assert.match(payment.processorPaymentIntentId, /^pi_test_/);
    assert.ok(payment.completedAt);
    // The processor's own event arrives too, and changes nothing more.
    await waitFor(async () => {
      const rows = await service.services.db.query(
        "SELECT 1 FROM processor_events WHERE type = 'checkout.session.completed' AND payment_id = $1",
        [created.transactionId],
      );
      return rows.length === 1 ? true : undefined;
    });
    // Written once the processor answered: the first status is processing, never pending.
    assert.deepEqual(await statusChanges(created.transactionId), ["processing", "succeeded"]);
    const gone = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(gone.status, 410, "a paid link does not open the processor page again");
  });

  it("declines: the page shows the error, the payment is failed, another card can still pay", async () => {
    const created = (await service.createPayment(group)).body.data;
    const declined = await payOnPage(created.sessionId, "4000000000000002");
    assert.equal(declined.status, 402);
    assert.match(await declined.text(), /declined/);
    const failed = await until(created.transactionId, "failed");
    assert.ok(failed.completedAt);
    // Back link: the customer returns unpaid and goes to the cancel URL.
    const back = await service.request(
      "GET",
      `/return/${new URL(created.paymentUrl).pathname.split("/").pop()}`,
    );
    assert.equal(back.headers.get("location"), "https://shop.example.com/cart");
    await payOnPage(created.sessionId, "4242424242424242");
    await until(created.transactionId, "succeeded");
  });

  it("customer going back without paying lands on the cancel URL; payment stays processing", async () => {
    const created = (await service.createPayment(group)).body.data;
    const token = new URL(created.paymentUrl).pathname.split("/").pop();
    const back = await service.request("GET", `/return/${token}`);
    assert.equal(back.status, 303);
    assert.equal(back.headers.get("location"), "https://shop.example.com/cart");
    assert.equal((await read(created.transactionId)).status, "processing");
  });

  it("refunds partially then fully, keeping completedAt", async () => {
    const created = (await service.createPayment(group, { amount: 1000 })).body.data;
    await sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await until(created.transactionId, "succeeded");
    const partial = await sandboxPost(`/sandbox/payment_intents/${paid.processorPaymentIntentId}/refund`, {
      amount: 300,
    });
    assert.equal(partial.status, 200);
    const partiallyRefunded = await until(created.transactionId, "partially_refunded");
    assert.equal(partiallyRefunded.completedAt, paid.completedAt);
    await sandboxPost(`/sandbox/payment_intents/${paid.processorPaymentIntentId}/refund`);
    const refunded = await until(created.transactionId, "refunded");
    assert.equal(refunded.completedAt, paid.completedAt);
  });

  it("refunds through the SDK's refunds API on the sandbox", async () => {
    const created = (await service.createPayment(group, { amount: 700 })).body.data;
    await sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await until(created.transactionId, "succeeded");
    const stripe = service.processorClient();
    const refund = await stripe.refunds.create({
      payment_intent: paid.processorPaymentIntentId,
      amount: 700,
    });
    assert.equal(refund.amount, 700);
    await until(created.transactionId, "refunded");
    await assert.rejects(stripe.checkout.sessions.retrieve("cs_test_missing"), (error: Error) => {
      assert.ok(error instanceof Stripe.errors.StripeInvalidRequestError);
      return true;
    });
  });

  for (const outcome of ["won", "lost"] as const) {
    it(`disputes and closes the dispute as ${outcome}`, async () => {
      const created = (await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" })).body
        .data;
      await sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      const paid = await until(created.transactionId, "succeeded");
      const dispute = await sandboxPost(`/sandbox/payment_intents/${paid.processorPaymentIntentId}/dispute`);
      await until(created.transactionId, "disputed");
      await sandboxPost(`/sandbox/disputes/${dispute.body.id}/close`, { outcome });
      const closed = await until(created.transactionId, `dispute_${outcome}`);
      assert.equal(closed.completedAt, paid.completedAt);
      const events = await service.services.db.query<{ event: string; status: string }>(
        "SELECT event, status FROM webhook_events WHERE payment_id = $1 ORDER BY created_at",
        [created.transactionId],
      );
      const expected = [
        { event: "payment.completed", status: "succeeded" },
        { event: "payment.disputed", status: "disputed" },
        ...(outcome === "lost" ? [{ event: "payment.disputed", status: "dispute_lost" }] : []),
      ];
      assert.deepEqual(events, expected, "dispute_won sends no webhook");
    });
  }

  it("expires when the processor says the session expired", async () => {
    const created = (await service.createPayment(group)).body.data;
    const stripe = service.processorClient();
    await stripe.checkout.sessions.expire(created.sessionId);
    const expired = await until(created.transactionId, "expired");
    assert.ok(expired.completedAt);
  });

  it("paid after cancel: stays cancelled, flagged and listed for reconciliation", async () => {
    const created = (await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" })).body
      .data;
    assert.equal(
      (await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`)).status,
      200,
    );
    const link = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(link.status, 303, "the link stays open after cancel (docs/api.md, Payment statuses)");
    await payOnPage(created.sessionId, "4242424242424242");
    const listed = await waitFor(async () => {
      const list = (await service.admin("GET", "/admin/v1/reconciliation")).body.data;
      return list.find((entry: { transactionId: string }) => entry.transactionId === created.transactionId);
    });
    assert.equal(listed.kind, "paid_after_cancel");
    assert.match(listed.processorPaymentId, /^pi_test_/);
    const payment = await read(created.transactionId);
    assert.equal(payment.status, "cancelled");
    assert.equal(payment.paidAfterCancel, true);
    const events = await service.services.db.query<{ status: string }>(
      "SELECT status FROM webhook_events WHERE payment_id = $1",
      [created.transactionId],
    );
    assert.deepEqual(events, [{ status: "cancelled" }], "no payment.completed for a cancelled payment");
  });

  it("sandbox honours Idempotency-Key: a retried create gives the same session", async () => {
    const stripe = service.processorClient();
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: "payment",
      line_items: [
        { quantity: 1, price_data: { currency: "usd", unit_amount: 100, product_data: { name: "x" } } },
      ],
      success_url: "https://a.example/ok",
      cancel_url: "https://a.example/no",
    };
    const first = await stripe.checkout.sessions.create(params, { idempotencyKey: "same-key" });
    const second = await stripe.checkout.sessions.create(params, { idempotencyKey: "same-key" });
    assert.equal(first.id, second.id);
  });

  it("serves 404 pages for unknown links and returns", async () => {
    for (const path of [
      "/pay/unknown-token-that-is-long-enough",
      "/return/unknown-token-that-is-long-enough",
      "/pay/<script>",
    ]) {
      const response = await service.request("GET", path);
      assert.equal(response.status, 404);
      assert.equal(response.headers.get("x-frame-options"), "DENY");
      assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
      assert.match(String(response.body), /not found/i);
    }
  });
});
