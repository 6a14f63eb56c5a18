import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  Checkout,
  CheckoutError,
  type CreatePaymentInput,
  type StreamedEvent,
  WebhookVerificationError,
} from "@checkout-service/client";
import { openCheckout, unreachableProcessor } from "../helpers/processor.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService, validPayment } from "../helpers/service.ts";
import { TcpProxy } from "../helpers/tcp-proxy.ts";
import { waitFor } from "../helpers/wait.ts";

const asCheckoutError = (error: unknown): CheckoutError => {
  assert.ok(error instanceof CheckoutError, String(error));
  return error;
};

describe("@checkout-service/client against a real service", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let checkout: Checkout;
  before(async () => {
    receiver = new Receiver({ "/hook": () => 200, "/api/v1/events/stream": () => 200 });
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host });
    group = await service.createGroup({ name: "Client shop" });
    checkout = new Checkout({ baseUrl: service.url, publicKey: group.publicKey, secretKey: group.secretKey });
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const countPayments = async () =>
    (
      await service.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM payments WHERE group_id = $1",
        [group.groupId],
      )
    )[0]?.n ?? 0;
  const paid = async (transactionId: string) => {
    const payment = await checkout.payments.get(transactionId);
    assert.ok(payment.processorSessionId);
    await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
      outcome: "succeeded",
    });
    await waitFor(async () =>
      (await checkout.payments.get(transactionId)).status === "succeeded" ? true : undefined,
    );
  };

  it("creates, reads, lists page by page or payment by payment, and cancels", async () => {
    const created = await checkout.payments.create({ ...validPayment(), amount: 2500 });
    assert.match(created.paymentUrl, /\/pay\//);
    const payment = await checkout.payments.get(created.transactionId);
    assert.equal(payment.status, "processing");
    assert.equal(payment.amount, 2500);
    for (let i = 0; i < 4; i++) await checkout.payments.create(validPayment());

    const first = await checkout.payments.list({ limit: 2 });
    assert.equal(first.payments.length, 2);
    assert.equal(first.hasMore, true);
    const all: string[] = [];
    for await (const each of checkout.payments.list({ limit: 2 })) all.push(each.id);
    assert.equal(all.length, await countPayments(), "every payment of every page");
    assert.equal(new Set(all).size, all.length, "none twice");
    assert.equal(all.at(-1), created.transactionId, "newest first");

    await checkout.payments.cancel(created.transactionId);
    assert.equal((await checkout.payments.get(created.transactionId)).status, "cancelled");
    const cancelled = await checkout.payments.list({ status: "cancelled" });
    assert.deepEqual(
      cancelled.payments.map((each) => each.id),
      [created.transactionId],
    );
  });

  it("erases a customer: the payment keeps its amount and loses the address", async () => {
    const created = await checkout.payments.create({
      ...validPayment(),
      customerEmail: "forget.me@example.com",
    });
    assert.deepEqual(await checkout.customers.erase("Forget.Me@example.com"), { erased: { payments: 1 } });
    const payment = await checkout.payments.get(created.transactionId);
    assert.equal(payment.customerEmail, undefined);
    assert.equal(typeof payment.erasedAt, "string");
    assert.equal(payment.amount, 1999);
    assert.deepEqual(await checkout.customers.erase("forget.me@example.com"), { erased: { payments: 0 } });
  });

  it("manages webhook endpoints: create with its secret once, list, get, update, test, rotate, delete", async () => {
    const made = await checkout.endpoints.create({
      url: `${receiver.url}/hook`,
      events: ["payment.completed"],
    });
    assert.match(made.secret, /^whsec_/);
    const endpointId: string = made.endpointId;
    assert.deepEqual(made.events, ["payment.completed"]);
    const listed = await checkout.endpoints.list();
    assert.ok(listed.endpoints.some((endpoint) => endpoint.endpointId === endpointId));
    const changed = await checkout.endpoints.update(endpointId, { description: "fulfilment" });
    assert.equal(changed.description, "fulfilment");
    assert.equal((await checkout.endpoints.get(endpointId)).description, "fulfilment");
    assert.equal((await checkout.endpoints.test(endpointId)).event, "webhook.test");
    const rotated = await checkout.endpoints.rotateSecret(endpointId, { graceSeconds: 0 });
    assert.notEqual(rotated.secret, made.secret);
    assert.equal((await checkout.endpoints.delete(endpointId)).deleted, true);
    const missing = await checkout.endpoints
      .get(endpointId)
      .then(() => assert.fail("found"), asCheckoutError);
    assert.equal(missing.status, 404);
  });

  it("answers a dispute: the inbox, the payment's disputes, evidence, and a refusal once submitted", async () => {
    const created = await checkout.payments.create(validPayment());
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await waitFor(async () => {
      const payment = await checkout.payments.get(created.transactionId);
      return payment.status === "succeeded" ? payment : undefined;
    });
    await service.sandboxPost(`/sandbox/payment_intents/${paid.processorPaymentIntentId}/dispute`);
    const [dispute] = await waitFor(async () => {
      const { disputes } = await checkout.disputes.ofPayment(created.transactionId);
      return disputes.length > 0 ? disputes : undefined;
    });
    assert.ok(dispute);
    const page = await checkout.disputes.list({ status: "needs_response", limit: 10 });
    assert.ok(page.disputes.some((each) => each.disputeId === dispute.disputeId));
    assert.equal((await checkout.disputes.get(dispute.disputeId)).status, "needs_response");
    const submitted = await checkout.disputes.evidence(dispute.disputeId, {
      productDescription: "A blue mug",
      submit: true,
    });
    assert.equal(submitted.status, "under_review");
    const refused = await checkout.disputes
      .accept(dispute.disputeId)
      .then(() => assert.fail("accepted"), asCheckoutError);
    assert.equal(refused.code, "DISPUTE_CLOSED");
    assert.equal(refused.status, 409);
  });

  it("rejects an error answer with a CheckoutError carrying status, code and message", async () => {
    const missing = await checkout.payments
      .get("00000000-0000-0000-0000-000000000000")
      .catch((error) => error);
    assert.ok(missing instanceof CheckoutError);
    assert.ok(missing instanceof Error);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, "NOT_FOUND");
    assert.match(missing.message, /not found/i);
    assert.ok(missing.requestId);
    const invalid = await checkout.payments
      .create({ ...validPayment(), amount: -1 } as never, { idempotencyKey: "bad-1" })
      .catch((error) => error);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, "INVALID_REQUEST");
    const wrongKeys = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: "sk_wrong",
    });
    assert.equal(
      (await wrongKeys.payments.list().then(() => assert.fail("should fail"), asCheckoutError)).code,
      "UNAUTHORIZED",
    );
  });

  it("retries a lost answer with the same Idempotency-Key: one payment, not two", async () => {
    const keys: (string | null)[] = [];
    let lost = false;
    const losingFetch: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get("idempotency-key"));
      const response = await fetch(input, init);
      if (!lost) {
        lost = true;
        await response.body?.cancel();
        throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      }
      return response;
    };
    const client = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
      fetch: losingFetch,
    });
    const before = await countPayments();
    const created = await client.payments.create(validPayment());
    assert.equal(await countPayments(), before + 1, "the retry was answered from the first request");
    assert.equal(keys.length, 2);
    assert.ok(keys[0]);
    assert.equal(keys[0], keys[1], "the same key on the retry");
    assert.equal((await client.payments.get(created.transactionId)).id, created.transactionId);
  });

  it("retries 500 and 503 with backoff, and gives up after maxRetries", async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1)
        return new Response(
          JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "busy" } }),
          { status: 503, headers: { "retry-after": "0" } },
        );
      return fetch(input, init);
    };
    const client = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
      fetch: flaky,
    });
    assert.equal((await client.payments.list()).payments.length > 0, true);
    assert.equal(calls, 2);
    const down: typeof fetch = async () =>
      new Response(JSON.stringify({ success: false, error: { code: "INTERNAL_ERROR", message: "boom" } }), {
        status: 500,
        headers: { "retry-after": "0" },
      });
    const never = new Checkout({
      baseUrl: service.url,
      publicKey: "pk",
      secretKey: "sk",
      fetch: down,
      maxRetries: 1,
    });
    const error = await never.payments.list().then(() => assert.fail("should fail"), asCheckoutError);
    assert.equal(error.status, 500);
    assert.equal(error.code, "INTERNAL_ERROR");
    const unreachable = new Checkout({
      baseUrl: "http://127.0.0.1:1",
      publicKey: "pk",
      secretKey: "sk",
      maxRetries: 0,
    });
    const lost = await unreachable.payments.get("x").then(() => assert.fail("should fail"), asCheckoutError);
    assert.ok(lost instanceof CheckoutError);
    assert.equal(lost.code, "CONNECTION_ERROR");
  });

  it("never repeats a call that carries no key: a resend whose answer is lost is queued once", async () => {
    const created = await checkout.payments.create({ ...validPayment(), webhookUrl: `${receiver.url}/hook` });
    await paid(created.transactionId);
    const [completed] = await waitFor(async () => {
      const listed = await checkout.events.list(created.transactionId);
      return listed.length >= 1 ? listed : undefined;
    });
    assert.ok(completed);
    let calls = 0;
    const losing: typeof fetch = async (input, init) => {
      calls += 1;
      const response = await fetch(input, init);
      await response.body?.cancel();
      throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    };
    const client = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
      fetch: losing,
    });
    const deliveries = async () =>
      (
        await service.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1",
          [completed.eventId],
        )
      )[0]?.n ?? 0;
    const before = await deliveries();
    const lost = await client.events
      .resend(created.transactionId, completed.eventId)
      .then(() => assert.fail("should fail"), asCheckoutError);
    assert.equal(lost.code, "CONNECTION_ERROR");
    assert.equal(calls, 1, "not sent again");
    assert.equal(await deliveries(), before + 1, "one resend queued");
  });

  it("rejects with the call's Idempotency-Key, so the merchant can repeat it safely", async () => {
    const down: typeof fetch = async () =>
      new Response(JSON.stringify({ success: false, error: { code: "INTERNAL_ERROR", message: "boom" } }), {
        status: 500,
      });
    const client = new Checkout({
      baseUrl: service.url,
      publicKey: "pk",
      secretKey: "sk",
      fetch: down,
      maxRetries: 0,
    });
    const failed = await client.payments
      .create(validPayment(), { idempotencyKey: "order-77" })
      .then(() => assert.fail("should fail"), asCheckoutError);
    assert.equal(failed.idempotencyKey, "order-77");
  });

  it("refunds, lists refunds and events, resends one and recovers, and verifies a real webhook", async () => {
    // The recovery's window starts here: the earlier tests' failed deliveries are not this test's.
    const started = new Date();
    const created = await checkout.payments.create({ ...validPayment(), webhookUrl: `${receiver.url}/hook` });
    await paid(created.transactionId);
    const refund = await checkout.refunds.create(created.transactionId, {
      amount: 500,
      reason: "requested_by_customer",
    });
    assert.equal(refund.amount, 500);
    assert.deepEqual(
      (await checkout.refunds.list(created.transactionId)).refunds.map((each) => each.refundId),
      [refund.refundId],
    );
    // payment.refunded is written when the processor confirms the refund, which may come after the answer.
    const events = await waitFor(async () => {
      const listed = await checkout.events.list(created.transactionId);
      return listed.length >= 2 ? listed : undefined;
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ["payment.completed", "payment.refunded"],
    );
    const [completed] = events;
    assert.ok(completed);
    const resent = await checkout.events.resend(created.transactionId, completed.eventId);
    assert.equal(resent.state, "pending");
    assert.deepEqual(await checkout.events.recover({ since: started }), { queued: 0 });

    const [delivered] = await waitFor(async () => {
      const found = receiver
        .at("/hook")
        .filter((request) => request.headers["webhook-id"] === completed.eventId);
      return found.length > 0 ? found : undefined;
    });
    assert.ok(delivered);
    const headers = delivered.headers as Record<string, string>;
    const body = checkout.webhooks.verify(delivered.body, headers, group.webhookSecret);
    assert.equal(body.transactionId, created.transactionId);
    assert.equal(body.event, "payment.completed");

    const refused = (run: () => unknown) => {
      assert.throws(
        run,
        (error: unknown) => error instanceof WebhookVerificationError && error instanceof Error,
      );
    };
    refused(() =>
      checkout.webhooks.verify(delivered.body, headers, `whsec_${Buffer.alloc(32, 9).toString("base64")}`),
    );
    refused(() =>
      checkout.webhooks.verify(delivered.body.replace("1999", "1"), headers, group.webhookSecret),
    );
    // Signed correctly, but six minutes ago.
    const old = Math.floor(Date.now() / 1000) - 360;
    const key = Buffer.from(group.webhookSecret.replace(/^whsec_/, ""), "base64");
    const signature = createHmac("sha256", key)
      .update(`${completed.eventId}.${old}.${delivered.body}`)
      .digest("base64");
    refused(() =>
      checkout.webhooks.verify(
        delivered.body,
        { ...headers, "webhook-timestamp": String(old), "webhook-signature": `v1,${signature}` },
        group.webhookSecret,
      ),
    );
  });

  it("follows the group's events and, after a lost connection, resumes after the last one: nothing missed, nothing twice", async () => {
    // Between the client and the service, a link that can be cut and mended.
    const link = new TcpProxy({ host: "127.0.0.1", port: Number(new URL(service.url).port) });
    await link.open();
    const following = new Checkout({
      baseUrl: `http://127.0.0.1:${link.port}`,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
    });
    const stop = new AbortController();
    const seen: StreamedEvent[] = [];
    const retries: { code: string; delayMs: number; wasOpen: boolean }[] = [];
    let opened = 0;
    const done = (async () => {
      const stream = following.events.stream({
        signal: stop.signal,
        onOpen: () => {
          opened += 1;
        },
        onRetry: ({ error, delayMs, wasOpen }) => retries.push({ code: error.code, delayMs, wasOpen }),
      });
      for await (const event of stream) seen.push(event);
    })();
    const arrived = (transactionId: string) =>
      waitFor(async () => seen.find((event) => event.data.transactionId === transactionId));
    try {
      await waitFor(async () => (opened === 1 ? true : undefined));
      const first = await checkout.sandbox.trigger("payment.completed");
      const event = await arrived(first.transactionId);
      assert.equal(event.event, "payment.completed");
      assert.equal(event.data.status, "succeeded");
      assert.equal(event.id, (await checkout.events.list(first.transactionId))[0]?.eventId);

      await link.cut();
      const missed = await checkout.sandbox.trigger("payment.failed");
      await waitFor(async () => (retries.length >= 1 ? true : undefined));
      await link.open();
      assert.equal((await arrived(missed.transactionId)).event, "payment.failed");
      assert.equal(opened, 2, "opened again once the link was back");
      assert.deepEqual(retries[0], { code: "CONNECTION_ERROR", delayMs: 2000, wasOpen: true });
      const later = await checkout.sandbox.trigger("payment.expired");
      await arrived(later.transactionId);
      const ids = seen.map((each) => each.id);
      assert.equal(new Set(ids).size, ids.length, "no event twice");
      assert.deepEqual(
        seen.map((each) => each.data.transactionId),
        [first.transactionId, missed.transactionId, later.transactionId],
      );
    } finally {
      stop.abort();
      await done;
      await link.cut();
    }
  });

  it("ends the stream with a CheckoutError, and no retry, for refused keys, an unknown lastEventId or what is not a stream", async () => {
    const retried: unknown[] = [];
    const firstOf = async (client: Checkout, lastEventId?: string) => {
      const stream = client.events.stream({
        ...(lastEventId && { lastEventId }),
        onRetry: (retry) => retried.push(retry),
      });
      for await (const event of stream) return event;
      return undefined;
    };
    const wrongKeys = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: "sk_wrong",
    });
    const refused = asCheckoutError(await firstOf(wrongKeys).catch((error: unknown) => error));
    assert.equal(refused.status, 401);
    const unknown = asCheckoutError(
      await firstOf(checkout, "00000000-0000-4000-8000-000000000000").catch((error: unknown) => error),
    );
    assert.equal(unknown.status, 400);
    assert.equal(unknown.code, "INVALID_REQUEST");
    // Something else answers 200 at that address: JSON, not an event stream.
    const elsewhere = new Checkout({
      baseUrl: receiver.url,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
    });
    const notAStream = asCheckoutError(await firstOf(elsewhere).catch((error: unknown) => error));
    assert.deepEqual([notAStream.status, notAStream.code], [200, "INVALID_RESPONSE"]);
    assert.deepEqual(retried, []);
  });
});

describe("@checkout-service/client and the rate limit", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({ RATE_LIMIT_MAX: "2", RATE_LIMIT_WINDOW_SECONDS: "1" });
    group = await service.createGroup({ name: "Busy shop" });
  });
  after(() => service.close());

  it("waits Retry-After on 429 and succeeds; with maxRetries 0 it rejects with 429 RATE_LIMIT_EXCEEDED", async () => {
    const keys = { baseUrl: service.url, publicKey: group.publicKey, secretKey: group.secretKey };
    const patient = new Checkout({ ...keys, maxRetries: 5 });
    for (let i = 0; i < 4; i++) await patient.payments.list();
    const impatient = new Checkout({ ...keys, maxRetries: 0 });
    let refused: unknown;
    for (let i = 0; i < 4 && !refused; i++)
      refused = await impatient.payments.list().then(() => undefined, asCheckoutError);
    assert.ok(refused instanceof CheckoutError);
    assert.equal(refused.status, 429);
    assert.equal(refused.code, "RATE_LIMIT_EXCEEDED");
  });
});

describe("the client and a create still running at a slow processor", () => {
  let service: TestService;
  let group: TestGroup;
  let checkoutsOpened = 0;
  before(async () => {
    const slow = unreachableProcessor({
      createCheckout: async (request) => {
        checkoutsOpened += 1;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return openCheckout(request);
      },
    });
    service = await startTestService({}, { processors: [slow] });
    group = await service.createGroup({ name: "Slow processor" });
  });
  after(() => service.close());

  it("answers the same request 409 IDEMPOTENCY_IN_PROGRESS with Retry-After while it runs", async () => {
    const headers = { "idempotency-key": "running-1" };
    const first = service.createPayment(group, {}, headers);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await service.createPayment(group, {}, headers);
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, "IDEMPOTENCY_IN_PROGRESS");
    assert.equal(second.headers.get("retry-after"), "1");
    const other = await service.createPayment(group, { amount: 5 }, headers);
    assert.equal(other.body.error.code, "IDEMPOTENCY_CONFLICT", "another body is still a conflict");
    assert.equal((await first).status, 200);
  });

  it("waits under the same key past its own timeout: one payment and one checkout, not a failure", async () => {
    const client = new Checkout({
      baseUrl: service.url,
      publicKey: group.publicKey,
      secretKey: group.secretKey,
      timeoutMs: 500,
    });
    const opened = checkoutsOpened;
    const created = await client.payments.create(validPayment({ amount: 4321 }));
    assert.equal((await client.payments.get(created.transactionId)).amount, 4321);
    assert.equal(checkoutsOpened - opened, 1, "the processor opened one checkout");
    const [row] = await service.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM payments WHERE group_id = $1 AND amount = 4321",
      [group.groupId],
    );
    assert.equal(row?.n, 1);
  });
});

describe("@checkout-service/client types", () => {
  it("type a payment's currency as the service takes it ('usd' | 'cad'): a typo fails the typecheck", () => {
    const taken: CreatePaymentInput["currency"][] = ["usd", "cad"];
    // @ts-expect-error the service takes no euros: `npm run typecheck` (CI) fails if this compiles
    const refused: CreatePaymentInput["currency"] = "eur";
    assert.deepEqual([...taken, refused], ["usd", "cad", "eur"]);
  });
});
