// Erasure under concurrency (docs/security.md, "Erasure"): an erasure running while the same
// customer's payment is paid, refunded or delivered leaves no e-mail behind. A delivery already
// on the wire may carry it; none sent after the erasure committed does. Two erasures at once are
// harmless.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { tablesHolding } from "../helpers/customer-traces.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const ROUNDS = 6;

describe("customer erasure under concurrency", () => {
  let service: TestService;
  let receiver: Receiver;
  let group: TestGroup;

  before(async () => {
    // Every delivery's first attempt fails: its retry, half a second later, comes after the race.
    receiver = new Receiver({
      "/hook": (received, previous) =>
        previous.some((entry) => entry.headers["webhook-id"] === received.headers["webhook-id"]) ? 200 : 500,
    });
    await receiver.start();
    service = await startTestService({
      ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host,
      WEBHOOK_RETRY_DELAYS: "0.5,0.1,0.1",
    });
    group = await service.createGroup({ name: "Race shop" });
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const erase = (email: string) => service.api(group, "POST", "/api/v1/customers/erase", { email });
  const statusOf = async (id: string) =>
    (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data.status as string;
  /** Bodies the receiver got for this payment after `since`. */
  const bodiesFor = (id: string, since: number) =>
    receiver
      .at("/hook")
      .filter((entry) => entry.at > since)
      .map((entry) => JSON.parse(entry.body) as Record<string, unknown>)
      .filter((body) => body.transactionId === id);

  it("racing a payment's success: no e-mail is stored, and no retry after the erasure carries it", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = `paid-race-${round}@example.com`;
      const created = (
        await service.createPayment(group, { customerEmail: email, webhookUrl: `${receiver.url}/hook` })
      ).body.data;
      const [, erased] = await Promise.all([
        service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" }),
        erase(email),
      ]);
      assert.equal(erased.status, 200);
      assert.equal(erased.body.data.erased.payments, 1);
      const committed = Date.now();
      await waitFor(async () => ((await statusOf(created.transactionId)) === "succeeded" ? true : undefined));
      // The delivery's retry (its second attempt) succeeds after the erasure answered.
      const [delivered] = await waitFor(async () => {
        const bodies = bodiesFor(created.transactionId, committed + 100);
        return bodies.length > 0 ? bodies : undefined;
      });
      assert.equal(delivered?.customerEmail, undefined, `round ${round}: a retry carried the address`);
      assert.deepEqual(await tablesHolding(service.services.db, email), [], `round ${round}`);
    }
  });

  it("racing a refund: the refund is made, and no e-mail is stored nor sent afterwards", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = `refund-race-${round}@example.com`;
      const created = (
        await service.createPayment(group, { customerEmail: email, webhookUrl: `${receiver.url}/hook` })
      ).body.data;
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      await waitFor(async () => ((await statusOf(created.transactionId)) === "succeeded" ? true : undefined));
      const [refund, erased] = await Promise.all([
        service.api(group, "POST", `/api/v1/payments/${created.transactionId}/refunds`, { amount: 100 }),
        erase(email),
      ]);
      assert.equal(refund.status, 201);
      assert.equal(erased.body.data.erased.payments, 1);
      const committed = Date.now();
      await waitFor(async () =>
        (await statusOf(created.transactionId)) === "partially_refunded" ? true : undefined,
      );
      await waitFor(async () =>
        bodiesFor(created.transactionId, committed + 100).some((body) => body.event === "payment.refunded")
          ? true
          : undefined,
      );
      for (const body of bodiesFor(created.transactionId, committed + 100)) {
        assert.equal(body.customerEmail, undefined, `round ${round}: ${body.event} carried the address`);
      }
      assert.deepEqual(await tablesHolding(service.services.db, email), [], `round ${round}`);
    }
  });

  it("two erasures of one customer at once: both answer 200, each payment is erased once, both are audited", async () => {
    const email = "twice@example.com";
    for (let n = 0; n < 5; n++) await service.createPayment(group, { customerEmail: email });
    const audits = async () =>
      (
        await service.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM audit_log WHERE action = 'customer.erased'",
        )
      )[0]?.n ?? 0;
    const auditedBefore = await audits();
    const answers = await Promise.all([erase(email), erase(email.toUpperCase())]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
    assert.equal(answers[0]?.body.data.erased.payments + answers[1]?.body.data.erased.payments, 5);
    assert.equal(await audits(), auditedBefore + 2);
    assert.deepEqual(await tablesHolding(service.services.db, email), []);
  });
});
