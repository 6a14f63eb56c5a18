import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("link expiry", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    // One-second links and a fast sweeper: no request arrives, the background worker acts.
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "1", EXPIRY_SWEEP_INTERVAL_MS: "50" });
    group = await service.createGroup();
  });
  after(() => service.close());

  const status = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;

  it("expires a processing payment past expiresAt with completedAt, and closes the processor session", async () => {
    const created = (await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" })).body
      .data;
    const payment = await waitFor(async () => {
      const current = await status(created.transactionId);
      return current.status === "expired" ? current : undefined;
    });
    assert.ok(payment.completedAt);
    assert.equal(service.sandbox?.state.sessions.get(created.sessionId)?.status, "expired");
    const link = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(link.status, 410);
    assert.match(String(link.body), /expired/);
    const events = await service.services.db.query<{ event: string }>(
      "SELECT event FROM webhook_events WHERE payment_id = $1",
      [created.transactionId],
    );
    assert.deepEqual(events, [{ event: "payment.expired" }]);
  });

  it("asks the processor first: a payment completed at the last second becomes succeeded", async () => {
    const created = (await service.createPayment(group)).body.data;
    // Paid at the processor, but its event never reaches us.
    const session = service.sandbox?.state.sessions.get(created.sessionId);
    assert.ok(session);
    session.status = "complete";
    session.payment_status = "paid";
    session.payment_intent = "pi_test_last_second";
    const payment = await waitFor(async () => {
      const current = await status(created.transactionId);
      return current.status !== "processing" ? current : undefined;
    });
    assert.equal(payment.status, "succeeded");
    assert.equal(payment.processorPaymentIntentId, "pi_test_last_second");
  });

  it("leaves cancelled payments alone", async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
    await sleep(1300);
    assert.equal((await status(created.transactionId)).status, "cancelled");
  });
});

describe("expiry when the processor forgot the checkout, and with several instances", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    // Workers off: each sweep is run by hand, so the test sees every one of them.
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "1" }, { workers: false });
    group = await service.createGroup();
  });
  after(() => service.close());

  const status = async (id: string) => (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data;
  /** Expire requests the processor received for one checkout session. */
  const expireCalls = async (sessionId: string) => {
    const requests = (await (await fetch(`${service.sandboxUrl}/sandbox/requests`)).json()).data as {
      path: string;
    }[];
    return requests.filter((request) => request.path === `/v1/checkout/sessions/${sessionId}/expire`).length;
  };

  it("a missing checkout expires the payment once and flags it once", async () => {
    const created = (await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" })).body
      .data;
    const forgotten = await service.sandboxDelete(`/sandbox/sessions/${created.sessionId}`);
    assert.equal(forgotten.status, 200);
    await sleep(1100);
    await service.services.payments.expiry.expireDue();
    const payment = await status(created.transactionId);
    assert.equal(payment.status, "expired");
    const items = async () =>
      (await service.admin("GET", "/admin/v1/reconciliation")).body.data.filter(
        (item: { kind: string; transactionId: string }) =>
          item.kind === "checkout_missing" && item.transactionId === created.transactionId,
      );
    assert.equal((await items()).length, 1);
    // Later sweeps have nothing left to do for it: not asked again, not flagged again.
    await service.services.db.query("UPDATE payments SET expiry_claimed_until = NULL");
    await service.services.payments.expiry.expireDue();
    assert.equal((await items()).length, 1);
    assert.equal(await expireCalls(created.sessionId), 1);
    const events = await service.services.db.query<{ event: string }>(
      "SELECT event FROM webhook_events WHERE payment_id = $1",
      [created.transactionId],
    );
    assert.deepEqual(events, [{ event: "payment.expired" }]);
  });

  it("a processor that does not answer is asked again only after the claim runs out", async () => {
    const created = (await service.createPayment(group)).body.data;
    await sleep(1100);
    const sandbox = service.sandbox;
    assert.ok(sandbox);
    await sandbox.app.close(); // the processor is down
    const swept = await service.services.payments.expiry.expireDue();
    assert.equal(swept, 0);
    assert.equal((await status(created.transactionId)).status, "processing");
    const [claim] = await service.services.db.query<{ claimed: boolean }>(
      "SELECT expiry_claimed_until > now() + interval '30 seconds' AS claimed FROM payments WHERE id = $1",
      [created.transactionId],
    );
    assert.equal(claim?.claimed, true, "claimed for the retry delay, not swept again in 5 s");
  });
});

describe("two instances sweeping one database", () => {
  it("ask the processor once per overdue payment", async () => {
    const first = await startTestService({ CHECKOUT_TTL_SECONDS: "1" }, { workers: false });
    // The second instance shares the first one's database and processor, as instances behind a load balancer do.
    const sharedDb = { ...first.services.db, close: async () => {} };
    const second = await startTestService(
      {
        PROCESSOR: "stripe",
        STRIPE_API_URL: first.sandboxUrl as string,
        STRIPE_WEBHOOK_SECRET: "whsec_unused_by_this_test",
      },
      { workers: false, db: sharedDb },
    );
    try {
      const group = await first.createGroup();
      const created = await Promise.all(
        Array.from({ length: 20 }, async () => (await first.createPayment(group)).body.data),
      );
      await sleep(1100);
      await Promise.all([
        first.services.payments.expiry.expireDue(),
        second.services.payments.expiry.expireDue(),
      ]);
      // Expired by one sweeper or by the processor's own event, which may arrive first.
      const statuses = await first.services.db.query<{ status: string }>(
        "SELECT DISTINCT status FROM payments",
      );
      assert.deepEqual(statuses, [{ status: "expired" }]);
      const requests = (await (await fetch(`${first.sandboxUrl}/sandbox/requests`)).json()).data as {
        path: string;
      }[];
      for (const payment of created) {
        const asked = requests.filter(
          (request) => request.path === `/v1/checkout/sessions/${payment.sessionId}/expire`,
        ).length;
        assert.equal(asked, 1, `session ${payment.sessionId} asked ${asked} times`);
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe("the service's clock decides expiry", () => {
  let service: TestService;
  let group: TestGroup;
  let now = Date.now();
  before(async () => {
    service = await startTestService(
      { CHECKOUT_TTL_SECONDS: "1800" },
      { workers: false, clock: { now: () => new Date(now) } },
    );
    group = await service.createGroup();
  });
  after(() => service.close());

  it("sets expiresAt from it, and the sweep and the link judge by it, not by the database's now()", async () => {
    const created = (await service.createPayment(group)).body.data;
    assert.equal(new Date(created.expiresAt).getTime(), now + 1800 * 1000);
    assert.equal(await service.services.payments.expiry.expireDue(), 0, "not due on either clock");
    now += 1801 * 1000;
    const link = await service.request("GET", new URL(created.paymentUrl).pathname);
    assert.equal(link.status, 410, "the link is closed by the service's clock");
    // The sweep closes the checkout at the processor; the payment moves by the sweep's own write or
    // by the processor's expired event, whichever lands first, so the count is not the proof.
    await service.services.payments.expiry.expireDue();
    assert.equal(service.sandbox?.state.sessions.get(created.sessionId)?.status, "expired");
    const payment = await waitFor(async () => {
      const read = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
      return read.status === "expired" ? read : undefined;
    });
    assert.equal(payment.status, "expired");
  });
});
