import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook } from "standardwebhooks";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { Receiver, WEBHOOK_BODY_FIELDS } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const DELAYS_MS = [50, 100, 100];

describe("webhook delivery", () => {
  cheapPasswordHashes();
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;
  let refusedUrl: string;

  before(async () => {
    receiver = new Receiver({
      "/ok": () => 200,
      "/accepted": () => 204,
      "/flaky": (_received, previous) => (previous.length === 0 ? 503 : 200),
      "/down": () => 500,
      "/400": () => 400,
      "/404": () => 404,
      "/408": () => 408,
      "/429": () => 429,
      "/slow": async () => {
        await sleep(600);
        return 200;
      },
      "/redirect": () => 302,
      "/says-why": () => ({ status: 400, body: '{"error":"<bad signature>"}' }),
      "/says-much": () => ({ status: 200, body: `${"é".repeat(300)}and more` }),
    });
    await receiver.start();
    // A port nobody listens on: connection refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((resolve) => closed.close(resolve));
    service = await startTestService({
      ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_DELAYS: "0.05,0.1,0.1",
      WEBHOOK_TIMEOUT_MS: "300",
    });
    group = await service.createGroup();
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  /** A payment whose cancel causes one payment.failed event to `url`. */
  const cancelledPayment = async (url: string, overrides: Record<string, unknown> = {}) => {
    const created = (await service.createPayment(group, { webhookUrl: url, ...overrides })).body.data;
    assert.equal(
      (await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`)).status,
      200,
    );
    return created.transactionId as string;
  };
  const deliveryOf = async (transactionId: string) =>
    waitFor(
      async () => {
        const events = (await service.api(group, "GET", `/api/v1/payments/${transactionId}/events`)).body
          .data;
        const delivery = events[0]?.deliveries[0];
        return delivery && delivery.state !== "pending" ? delivery : undefined;
      },
      10000,
      "delivery finished",
    );
  const bodiesFor = (path: string, transactionId: string) =>
    receiver.at(path).filter((entry) => JSON.parse(entry.body).transactionId === transactionId);

  it("sends headers and body exactly as documented, signed per Standard Webhooks", async () => {
    const id = await cancelledPayment(`${receiver.url}/ok`, {
      metadata: { orderId: "A-7", _internal: "x" },
      description: "Blue mug",
    });
    const delivery = await deliveryOf(id);
    assert.equal(delivery.state, "succeeded");
    const [request] = bodiesFor("/ok", id);
    assert.ok(request);
    const body = JSON.parse(request.body);
    assert.deepEqual(Object.keys(body), WEBHOOK_BODY_FIELDS);
    assert.equal(body.event, "payment.failed");
    assert.equal(body.status, "cancelled");
    assert.equal(body.transactionId, id);
    assert.equal(body.amount, 1999);
    assert.equal(body.currency, "usd");
    assert.equal(body.customerEmail, "jane@example.com");
    assert.equal(body.processorPaymentId, null);
    assert.deepEqual(body.metadata, { orderId: "A-7", description: "Blue mug" });
    assert.match(body.completedAt, /Z$/);
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT.*Z$/);

    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["user-agent"], "Service-Webhook/1.0");
    assert.equal(request.headers["x-service-event"], "payment.failed");
    assert.equal(request.headers["x-service-transaction"], id);
    assert.equal(request.headers["x-service-timestamp"], body.timestamp);
    const verified = new Webhook(group.webhookSecret).verify(request.body, {
      "webhook-id": request.headers["webhook-id"] as string,
      "webhook-timestamp": request.headers["webhook-timestamp"] as string,
      "webhook-signature": request.headers["webhook-signature"] as string,
    });
    assert.deepEqual(verified, body);
    assert.throws(() =>
      new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(request.body, {
        "webhook-id": request.headers["webhook-id"] as string,
        "webhook-timestamp": request.headers["webhook-timestamp"] as string,
        "webhook-signature": request.headers["webhook-signature"] as string,
      }),
    );
  });

  it("any 2xx acknowledges", async () => {
    const delivery = await deliveryOf(await cancelledPayment(`${receiver.url}/accepted`));
    assert.equal(delivery.state, "succeeded");
    assert.equal(delivery.attempts.length, 1);
  });

  it("5xx then 2xx: retried once, then delivered, with the same body timestamp", async () => {
    const id = await cancelledPayment(`${receiver.url}/flaky`);
    const delivery = await deliveryOf(id);
    assert.equal(delivery.state, "succeeded");
    assert.deepEqual(
      delivery.attempts.map((attempt: { statusCode: number }) => attempt.statusCode),
      [503, 200],
    );
    const bodies = bodiesFor("/flaky", id).map((entry) => JSON.parse(entry.body));
    assert.equal(bodies.length, 2);
    assert.equal(bodies[0].timestamp, bodies[1].timestamp);
  });

  it("always 5xx: exactly 4 attempts spaced by the configured waits, then dropped", async () => {
    const id = await cancelledPayment(`${receiver.url}/down`);
    const delivery = await deliveryOf(id);
    assert.equal(delivery.state, "failed");
    assert.equal(delivery.attempts.length, 4);
    const requests = bodiesFor("/down", id);
    assert.equal(requests.length, 4);
    for (let i = 1; i < requests.length; i++) {
      const gap = (requests[i]?.at ?? 0) - (requests[i - 1]?.at ?? 0);
      const wait = DELAYS_MS[i - 1] as number;
      assert.ok(gap >= wait - 5, `gap ${i} was ${gap} ms, expected at least ${wait}`);
      assert.ok(gap < wait + 1000, `gap ${i} was ${gap} ms, expected about ${wait}`);
    }
    assert.equal(
      new Set(requests.map((entry) => JSON.parse(entry.body).timestamp)).size,
      1,
      "retries keep the timestamp",
    );
    assert.equal(new Set(requests.map((entry) => entry.headers["webhook-id"])).size, 1);
    await sleep(300);
    assert.equal(bodiesFor("/down", id).length, 4, "not retried later");
    const failed = (await service.admin("GET", "/admin/v1/deliveries/failed")).body.data;
    assert.ok(failed.some((entry: { transactionId: string }) => entry.transactionId === id));
  });

  for (const status of [400, 404, 408, 429]) {
    it(`${status}: exactly one attempt, then stopped`, async () => {
      const id = await cancelledPayment(`${receiver.url}/${status}`);
      const delivery = await deliveryOf(id);
      assert.equal(delivery.state, "failed");
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0].statusCode, status);
      await sleep(300);
      assert.equal(bodiesFor(`/${status}`, id).length, 1);
    });
  }

  it("slower than the timeout: counted as failed and retried", async () => {
    const id = await cancelledPayment(`${receiver.url}/slow`);
    const delivery = await deliveryOf(id);
    assert.equal(delivery.state, "failed");
    assert.equal(delivery.attempts.length, 4);
    for (const attempt of delivery.attempts) {
      assert.equal(attempt.statusCode, null);
      assert.match(attempt.error, /timeout/);
      assert.ok(attempt.durationMs >= 250 && attempt.durationMs < 2000, `duration ${attempt.durationMs}`);
    }
  });

  it("connection refused: retried, then dropped", async () => {
    const id = await cancelledPayment(refusedUrl);
    const delivery = await deliveryOf(id);
    assert.equal(delivery.state, "failed");
    assert.equal(delivery.attempts.length, 4);
    assert.match(delivery.attempts[0].error, /ECONNREFUSED/);
  });

  it("never follows redirects", async () => {
    const before = receiver.at("/ok").length;
    const id = await cancelledPayment(`${receiver.url}/redirect`);
    const delivery = await deliveryOf(id);
    assert.equal(delivery.attempts[0].statusCode, 302);
    assert.equal(receiver.at("/ok").length, before, "the redirect target was never called");
  });

  it("sends one event per documented mapping for every status, none for dispute_won", async () => {
    const sandbox = async (path: string, body?: unknown) => (await service.sandboxPost(path, body)).body;
    const url = `${receiver.url}/ok`;
    const received = (id: string, count: number) =>
      waitFor(async () => {
        const bodies = bodiesFor("/ok", id).map((entry) => JSON.parse(entry.body));
        return bodies.length >= count ? bodies : undefined;
      });
    const paid = async () => {
      const created = (await service.createPayment(group, { webhookUrl: url, amount: 1000 })).body.data;
      await sandbox(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      const [completed] = await received(created.transactionId, 1);
      return { ...created, paymentIntent: completed.processorPaymentId as string };
    };

    const refundedPayment = await paid();
    await sandbox(`/sandbox/payment_intents/${refundedPayment.paymentIntent}/refund`, { amount: 400 });
    await received(refundedPayment.transactionId, 2);
    await sandbox(`/sandbox/payment_intents/${refundedPayment.paymentIntent}/refund`);
    const refundBodies = await received(refundedPayment.transactionId, 3);
    assert.deepEqual(
      refundBodies.map((body) => [body.event, body.status]),
      [
        ["payment.completed", "succeeded"],
        ["payment.refunded", "partially_refunded"],
        ["payment.refunded", "refunded"],
      ],
    );
    assert.match(refundBodies[0].processorPaymentId, /^pi_test_/);
    assert.equal(refundBodies[2].completedAt, refundBodies[0].completedAt, "refunds keep the original time");

    const lost = await paid();
    const lostDispute = await sandbox(`/sandbox/payment_intents/${lost.paymentIntent}/dispute`);
    await received(lost.transactionId, 2);
    await sandbox(`/sandbox/disputes/${lostDispute.id}/close`, { outcome: "lost" });
    assert.deepEqual(
      (await received(lost.transactionId, 3)).map((body) => [body.event, body.status]),
      [
        ["payment.completed", "succeeded"],
        ["payment.disputed", "disputed"],
        ["payment.disputed", "dispute_lost"],
      ],
    );

    const won = await paid();
    const wonDispute = await sandbox(`/sandbox/payment_intents/${won.paymentIntent}/dispute`);
    await received(won.transactionId, 2);
    await sandbox(`/sandbox/disputes/${wonDispute.id}/close`, { outcome: "won" });
    await waitFor(async () => {
      const status = (await service.api(group, "GET", `/api/v1/payments/${won.transactionId}`)).body.data
        .status;
      return status === "dispute_won" ? true : undefined;
    });
    await sleep(200);
    assert.equal(bodiesFor("/ok", won.transactionId).length, 2, "no webhook for dispute_won");

    const declined = (await service.createPayment(group, { webhookUrl: url })).body.data;
    await sandbox(`/sandbox/sessions/${declined.sessionId}/complete`, { outcome: "failed" });
    assert.deepEqual(
      (await received(declined.transactionId, 1)).map((body) => [body.event, body.status]),
      [["payment.failed", "failed"]],
    );

    const expiring = (await service.createPayment(group, { webhookUrl: url })).body.data;
    const stripeExpire = await fetch(
      `${service.sandboxUrl}/v1/checkout/sessions/${expiring.sessionId}/expire`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${service.config.processorSettings.stripe?.STRIPE_SECRET_KEY}` },
      },
    );
    assert.equal(stripeExpire.status, 200);
    assert.deepEqual(
      (await received(expiring.transactionId, 1)).map((body) => [body.event, body.status]),
      [["payment.expired", "expired"]],
    );

    const processing = (await service.createPayment(group, { webhookUrl: url })).body.data;
    await sleep(200);
    assert.equal(bodiesFor("/ok", processing.transactionId).length, 0, "nothing while processing");
  });

  it("keeps the start of the receiver's answer for each attempt, on the API and the dashboard", async () => {
    const id = await cancelledPayment(`${receiver.url}/says-why`);
    const rejected = await deliveryOf(id);
    assert.equal(rejected.attempts[0].answer, '{"error":"<bad signature>"}');
    const page = await signedInUser(service, group, "dev@answers.example", "developer");
    const detail = await page.get(`/dashboard/payments/${id}`);
    assert.match(
      detail.text,
      /<code class="answer">\{&quot;error&quot;:&quot;&lt;bad signature&gt;&quot;\}<\/code>/,
    );

    // 512 bytes at most, never half a character: 256 two-byte "é" fill them.
    const long = await deliveryOf(await cancelledPayment(`${receiver.url}/says-much`));
    assert.equal(long.attempts[0].answer, "é".repeat(256));
    // No answer at all: a connection refused.
    const refused = await deliveryOf(await cancelledPayment(refusedUrl));
    assert.equal(refused.attempts[0].answer, null);
  });

  it("lists events with attempts, resends on request, and lets merchants catch up with since", async () => {
    const since = new Date().toISOString();
    const id = await cancelledPayment(`${receiver.url}/400`);
    await deliveryOf(id);
    const events = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
    assert.equal(events.length, 1);
    assert.equal(events[0].event, "payment.failed");
    assert.equal(events[0].deliveries[0].attempts[0].statusCode, 400);
    assert.ok(Number.isInteger(events[0].deliveries[0].attempts[0].durationMs));

    const resent = await service.api(group, "POST", `/api/v1/payments/${id}/events/${events[0].id}/resend`);
    assert.equal(resent.status, 202);
    await waitFor(async () => (bodiesFor("/400", id).length === 2 ? true : undefined));
    const after = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
    assert.equal(after[0].deliveries.length, 2);
    // A resend is the same message: the same webhook-id, which the events API shows as eventId.
    assert.equal(after[0].eventId, events[0].id);
    assert.equal(after[0].type, "payment.failed");
    const ids = bodiesFor("/400", id).map((request) => request.headers["webhook-id"]);
    assert.deepEqual(ids, [after[0].eventId, after[0].eventId]);

    const feed = (await service.api(group, "GET", `/api/v1/events?since=${encodeURIComponent(since)}`)).body
      .data;
    assert.ok(feed.some((event: { transactionId: string }) => event.transactionId === id));
    const bad = await service.api(group, "GET", "/api/v1/events?since=yesterday");
    assert.equal(bad.status, 400);
    const otherGroup = await service.createGroup({ name: "Other" });
    assert.equal((await service.api(otherGroup, "GET", `/api/v1/payments/${id}/events`)).status, 404);
    const theirFeed = (
      await service.api(otherGroup, "GET", `/api/v1/events?since=${encodeURIComponent(since)}`)
    ).body.data;
    assert.deepEqual(theirFeed, []);
    const missing = await service.api(
      group,
      "POST",
      `/api/v1/payments/${id}/events/00000000-0000-4000-8000-000000000000/resend`,
    );
    assert.equal(missing.status, 404);
  });

  it("signs with every secret still in its grace period, however many rotations came after it", async () => {
    const rotate = () =>
      service.admin("POST", `/admin/v1/groups/${group.groupId}/webhook-secret/rotate`, {
        graceSeconds: 3600,
      });
    /** A delivery of a new event, with the signature headers a receiver verifies. */
    const signedDelivery = async () => {
      const id = await cancelledPayment(`${receiver.url}/ok`);
      await deliveryOf(id);
      const [request] = bodiesFor("/ok", id);
      assert.ok(request);
      const headers = {
        "webhook-id": request.headers["webhook-id"] as string,
        "webhook-timestamp": request.headers["webhook-timestamp"] as string,
        "webhook-signature": request.headers["webhook-signature"] as string,
      };
      return { body: request.body, headers };
    };
    const rotated = await rotate();
    assert.equal(rotated.status, 200);
    const newSecret = rotated.body.data.webhookSecret;
    const first = await signedDelivery();
    assert.equal(first.headers["webhook-signature"].split(" ").length, 2);
    new Webhook(newSecret).verify(first.body, first.headers);
    new Webhook(group.webhookSecret).verify(first.body, first.headers);

    // A second rotation (or a double-submitted form) inside the first's grace keeps every secret.
    const [second, third] = await Promise.all([rotate(), rotate()]);
    assert.equal(second.status, 200);
    assert.equal(third.status, 200);
    const later = await signedDelivery();
    const verifies = (secret: string) => {
      try {
        new Webhook(secret).verify(later.body, later.headers);
        return true;
      } catch {
        return false;
      }
    };
    assert.deepEqual(
      [group.webhookSecret, newSecret, second.body.data.webhookSecret, third.body.data.webhookSecret].map(
        verifies,
      ),
      [true, true, true, true],
      "S0, S1 and both of the later secrets verify",
    );
  });

  it("refuses a rotation that would keep more than 9 earlier secrets signing, but not one without grace", async () => {
    const other = await service.createGroup({ name: "Rotating often" });
    const rotate = (graceSeconds: number) =>
      service.admin("POST", `/admin/v1/groups/${other.groupId}/webhook-secret/rotate`, { graceSeconds });
    for (let i = 0; i < 9; i++) assert.equal((await rotate(3600)).status, 200);
    const refused = await rotate(3600);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "INVALID_REQUEST");
    assert.equal((await rotate(0)).status, 200, "a rotation that keeps nothing of the old secret");
  });

  it("exposes delivery and HTTP metrics", async () => {
    const metrics = await service.request("GET", "/metrics");
    assert.equal(metrics.status, 200);
    const text = String(metrics.body);
    assert.match(text, /webhook_attempts_total\{outcome="delivered"\} \d+/);
    assert.match(text, /webhook_attempts_total\{outcome="rejected"\} \d+/);
    assert.match(text, /webhook_attempts_total\{outcome="dropped"\} \d+/);
    assert.match(text, /webhook_attempt_duration_seconds_bucket/);
    assert.match(text, /webhook_first_attempt_delay_seconds_bucket/);
    assert.match(text, /webhook_queue_depth \d+/);
    assert.match(text, /http_request_duration_seconds_bucket\{.*route="\/api\/v1\/payments\/create"/);
  });
});
