// Money taken on a checkout a create abandoned belongs to no payment. It becomes a
// reconciliation item the operator refunds in full, at the processor that took it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { paidOrphan } from "../helpers/orphans.ts";
import { cheapPasswordHashes, signedInOperator } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("an abandoned checkout the customer paid anyway", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    // Closed by hand here, not by the worker, so the customer can pay it first.
    service = await startTestService({ ABANDONED_CHECKOUT_SWEEP_MS: "50000" });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("is listed for the operator, refunded in full once at its own processor, and the payment is untouched", async () => {
    const orphan = await paidOrphan(service, group);
    const payment = (await service.api(group, "GET", `/api/v1/payments/${orphan.transactionId}`)).body.data;
    assert.equal(payment.processor, "square");
    assert.equal(payment.status, "processing", "the payment's own checkout is the Square one");

    const [item] = (await service.admin("GET", "/admin/v1/reconciliation")).body.data.filter(
      (each: { id: string }) => each.id === orphan.itemId,
    );
    assert.equal(item.processor, "stripe");
    assert.equal(item.amount, 1999);
    assert.equal(item.refundable, 1999);
    assert.equal(item.transactionId, null, "it belongs to no payment");

    const stripe = service.processorClient();
    const refundsAtStripe = async () =>
      (await stripe.refunds.list({ payment_intent: orphan.paymentIntent })).data;
    assert.equal((await refundsAtStripe()).length, 0);
    const [first, second] = await Promise.all([
      service.admin("POST", `/admin/v1/reconciliation/items/${orphan.itemId}/refund`),
      service.admin("POST", `/admin/v1/reconciliation/items/${orphan.itemId}/refund`),
    ]);
    // One ask carries it out; the other is told it is under way (409) or already done (404).
    const answers = [first, second].map((answer) => answer.status).sort();
    assert.equal(answers[0], 201, JSON.stringify([first.body, second.body]));
    assert.ok([404, 409].includes(answers[1] as number), JSON.stringify([first.body, second.body]));
    const made = (first.status === 201 ? first : second).body.data;
    assert.equal(made.processor, "stripe");
    assert.equal(made.amount, 1999);
    assert.equal(made.status, "succeeded");
    const refunds = await refundsAtStripe();
    assert.deepEqual(
      refunds.map((refund) => refund.amount),
      [1999],
      "refunded in full, once, however often asked",
    );
    const queue = (await service.admin("GET", "/admin/v1/reconciliation")).body.data;
    assert.equal(queue.filter((each: { id: string }) => each.id === orphan.itemId).length, 0, "resolved");
    assert.equal(
      (await service.admin("POST", `/admin/v1/reconciliation/items/${orphan.itemId}/refund`)).status,
      404,
    );
    const audited = await service.services.db.query<{ action: string; target: string }>(
      "SELECT action, target FROM audit_log WHERE action = 'orphan.refunded'",
    );
    assert.deepEqual(audited, [{ action: "orphan.refunded", target: orphan.itemId }]);
    const still = (await service.api(group, "GET", `/api/v1/payments/${orphan.transactionId}`)).body.data;
    assert.equal(still.status, "processing");
    assert.equal(still.amountRefunded, 0);
  });

  it("is refunded from the operator console too", async () => {
    const orphan = await paidOrphan(service, group);
    const operator = await signedInOperator(service, `orphans-${Date.now()}@example.com`);
    const page = (await operator.get("/operator/reconciliation")).text;
    assert.match(
      page,
      new RegExp(`id="item-${orphan.itemId}">\\s*<h2>Paid on a checkout a create abandoned</h2>`),
    );
    assert.match(page, new RegExp(`stripe · ${orphan.paymentIntent}`));
    const refunded = await operator.post("/operator/reconciliation/orphan-refund", { id: orphan.itemId });
    assert.equal(refunded.status, 303);
    assert.match((await operator.get("/operator/reconciliation")).text, /the item is resolved/);
    const refunds = await service.processorClient().refunds.list({ payment_intent: orphan.paymentIntent });
    assert.deepEqual(
      refunds.data.map((refund) => refund.amount),
      [1999],
    );
  });

  it("refuses what is not an open orphan item", async () => {
    for (const itemId of ["0", "999999999", "abc"]) {
      const answer = await service.admin("POST", `/admin/v1/reconciliation/items/${itemId}/refund`);
      assert.ok([400, 404].includes(answer.status), `${itemId}: ${answer.status}`);
    }
  });
});
