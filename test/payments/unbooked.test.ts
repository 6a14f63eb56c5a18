// Paid checkouts the books lost (a primary that failed over asynchronously): a reconciliation run
// lists each processor's checkouts of its window, flags every paid one naming no payment of ours,
// and the operator gives the money back once, counted at the processor.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("unbooked paid checkouts", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "3600" });
    // A booked, paid payment at each processor: a run must not flag these.
    const group = await service.createGroup();
    const booked = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${booked.sessionId}/complete`, { outcome: "succeeded" });
  });
  after(() => service.close());

  /** A checkout opened at the processor for a transaction we have no row of, then paid there. */
  const lost = async (processor: "stripe" | "square", pay: boolean) => {
    const transactionId = randomUUID();
    const checkout = await service.services.processors.of(processor).createCheckout({
      transactionId,
      amount: 3100,
      currency: "usd",
      customerEmail: "lost@buyer.example",
      lineItemName: "A lost order",
      returnUrl: `${service.url}/return/x`,
      expiresAt: new Date(Date.now() + 3_600_000),
      idempotencyKey: `checkout-${transactionId}`,
    });
    if (pay) await service.sandboxPost(`/sandbox/sessions/${checkout.id}/complete`, { outcome: "succeeded" });
    return { transactionId, checkout };
  };
  const run = async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const started = await service.admin("POST", "/admin/v1/reconciliation/runs", { since });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    return waitFor(async () => {
      const current = await service.admin("GET", `/admin/v1/reconciliation/runs/${started.body.data.runId}`);
      return current.body.data.status === "finished" ? current.body.data : undefined;
    });
  };
  const unbookedItems = async () =>
    ((await service.admin("GET", "/admin/v1/reconciliation")).body.data as Record<string, unknown>[]).filter(
      (item) => item.kind === "unbooked_payment",
    );

  it("flags each paid one at either processor once, with the processor's facts; unpaid ones and booked ones not", async () => {
    const stripePaid = await lost("stripe", true);
    const squarePaid = await lost("square", true);
    await lost("stripe", false);
    const first = await run();
    assert.equal(first.drifts, 2);
    const items = await unbookedItems();
    assert.equal(items.length, 2);
    for (const [processor, found] of [
      ["stripe", stripePaid],
      ["square", squarePaid],
    ] as const) {
      const item = items.find((each) => String(each.reason).includes(found.transactionId));
      assert.ok(item, `${processor}: flagged`);
      assert.equal(item.processor, processor);
      assert.equal(item.amount, 3100);
      assert.equal(item.currency, "usd");
      assert.equal(item.transactionId, null);
      assert.ok(item.processorPaymentId);
      assert.match(String(item.reason), /31\.00 USD paid at .* which has no payment here/);
    }
    const second = await run();
    assert.equal(second.drifts, 0, "a second run flags nothing again");
    assert.equal((await unbookedItems()).length, 2);
  });

  it("the operator refunds one in full, carried out once at the processor; a partial refund made there counts", async () => {
    const found = await lost("stripe", true);
    const intent = service.sandbox?.state.sessions.get(found.checkout.id)?.payment_intent as string;
    await service.sandboxPost(`/sandbox/payment_intents/${intent}/refund`, { amount: 1000 });
    await run();
    const item = (await unbookedItems()).find((each) => String(each.reason).includes(found.transactionId));
    assert.ok(item);
    assert.equal(item.amount, 2100, "what is left to give back");
    const refundsAt = () =>
      [...(service.sandbox?.state.refunds.values() ?? [])].filter(
        (refund) => refund.payment_intent === intent,
      );
    const refunded = await service.admin("POST", `/admin/v1/reconciliation/items/${item.id}/refund`, {});
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    assert.equal(refunded.body.data.amount, 2100);
    const again = await service.admin("POST", `/admin/v1/reconciliation/items/${item.id}/refund`, {});
    assert.equal(again.status, 404, "the item is resolved");
    assert.deepEqual(
      refundsAt()
        .map((refund) => refund.amount)
        .sort(),
      [1000, 2100],
      "one refund of ours at the processor, beside the one made there",
    );
  });
});
