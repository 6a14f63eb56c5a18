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
