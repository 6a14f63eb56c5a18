import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planFact } from "../../../src/payments/core/facts.ts";
import type { PaymentStatus } from "../../../src/payments/core/status.ts";

const payment = (status: PaymentStatus, refundedAmount = 0) => ({ status, amount: 1000, refundedAmount });
const targets = (plan: ReturnType<typeof planFact>) =>
  plan.kind === "steps" ? plan.steps.map((step) => step.to) : plan;

describe("processor facts, in and out of order", () => {
  it("pays a processing or declined payment, and ignores a repeat", () => {
    assert.deepEqual(targets(planFact(payment("processing"), { kind: "paid" })), ["succeeded"]);
    assert.deepEqual(targets(planFact(payment("failed"), { kind: "paid" })), ["succeeded"]);
    assert.deepEqual(targets(planFact(payment("succeeded"), { kind: "paid" })), []);
  });

  it("fails and expires only what is still open", () => {
    assert.deepEqual(targets(planFact(payment("processing"), { kind: "failed" })), ["failed"]);
    assert.deepEqual(targets(planFact(payment("processing"), { kind: "expired" })), ["expired"]);
    assert.deepEqual(targets(planFact(payment("succeeded"), { kind: "failed" })), []);
    assert.deepEqual(targets(planFact(payment("succeeded"), { kind: "expired" })), []);
    // A late decline on a cancelled payment moves no money: nothing to reconcile.
    assert.deepEqual(targets(planFact(payment("cancelled"), { kind: "failed" })), []);
  });

  it("passes through succeeded when a refund arrives before the completion", () => {
    const plan = planFact(payment("processing"), { kind: "refunded", amountRefunded: 400 });
    assert.deepEqual(plan, {
      kind: "steps",
      steps: [{ to: "succeeded" }, { to: "partially_refunded", refundedAmount: 400 }],
    });
  });

  it("takes cumulative refund totals: full at the amount, older smaller figures ignored", () => {
    assert.deepEqual(
      targets(planFact(payment("partially_refunded", 400), { kind: "refunded", amountRefunded: 1000 })),
      ["refunded"],
    );
    assert.deepEqual(
      targets(planFact(payment("partially_refunded", 700), { kind: "refunded", amountRefunded: 400 })),
      [],
    );
    assert.deepEqual(
      targets(planFact(payment("partially_refunded", 400), { kind: "refunded", amountRefunded: 400 })),
      [],
    );
  });

  it("opens and closes disputes, passing through disputed when the close comes first", () => {
    assert.deepEqual(targets(planFact(payment("succeeded"), { kind: "disputed" })), ["disputed"]);
    assert.deepEqual(targets(planFact(payment("disputed"), { kind: "dispute_closed", outcome: "won" })), [
      "dispute_won",
    ]);
    assert.deepEqual(targets(planFact(payment("succeeded"), { kind: "dispute_closed", outcome: "lost" })), [
      "disputed",
      "dispute_lost",
    ]);
    assert.deepEqual(targets(planFact(payment("processing"), { kind: "dispute_closed", outcome: "lost" })), [
      "succeeded",
      "disputed",
      "dispute_lost",
    ]);
  });

  it("flags money moving on a cancelled or expired payment instead of changing its status", () => {
    for (const status of ["cancelled", "expired"] as const) {
      for (const fact of [
        { kind: "paid" },
        { kind: "refunded", amountRefunded: 100 },
        { kind: "disputed" },
      ] as const) {
        const plan = planFact(payment(status), fact);
        assert.equal(plan.kind, "closed", `${fact.kind} on ${status}`);
      }
    }
  });

  it("names the cause of each closed-payment item, and records refunds without one", () => {
    assert.deepEqual(planFact(payment("cancelled"), { kind: "paid" }), {
      kind: "closed",
      item: "paid_after_cancel",
      detail: "paid reported on a cancelled payment",
      refundedAmount: null,
    });
    const expired = planFact(payment("expired"), { kind: "paid" });
    assert.equal(expired.kind === "closed" && expired.item, "paid_after_expiry");
    const disputed = planFact(payment("cancelled"), { kind: "disputed" });
    assert.equal(disputed.kind === "closed" && disputed.item, "disputed_after_close");
    const refunded = planFact(payment("cancelled", 300), { kind: "refunded", amountRefunded: 1000 });
    assert.deepEqual(refunded.kind === "closed" && [refunded.item, refunded.refundedAmount], [null, 1000]);
    const older = planFact(payment("cancelled", 1000), { kind: "refunded", amountRefunded: 300 });
    assert.equal(older.kind === "closed" && older.refundedAmount, null);
  });
});
