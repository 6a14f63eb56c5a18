import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CANCELLABLE,
  canTransition,
  PAYMENT_STATUSES,
  sourcesOf,
} from "../../../src/payments/core/status.ts";

// Written out independently of the table under test: docs/api.md's statuses plus the
// processor-driven changes it allows (a declined card may still be paid; refunds and disputes after payment).
const ALLOWED = new Set([
  "pending→processing",
  "pending→failed",
  "pending→cancelled",
  "processing→succeeded",
  "processing→failed",
  "processing→expired",
  "processing→cancelled",
  "failed→succeeded",
  "succeeded→refunded",
  "succeeded→partially_refunded",
  "succeeded→disputed",
  "partially_refunded→partially_refunded",
  "partially_refunded→refunded",
  "partially_refunded→disputed",
  "refunded→disputed",
  "disputed→dispute_won",
  "disputed→dispute_lost",
  "dispute_won→partially_refunded",
  "dispute_won→refunded",
]);

describe("the transition table", () => {
  for (const from of PAYMENT_STATUSES) {
    for (const to of PAYMENT_STATUSES) {
      const allowed = ALLOWED.has(`${from}→${to}`);
      it(`${allowed ? "allows" : "refuses"} ${from} → ${to}`, () => {
        assert.equal(canTransition(from, to), allowed);
      });
    }
  }

  it("has no way out of expired, cancelled or dispute_lost", () => {
    for (const closed of ["expired", "cancelled", "dispute_lost"] as const) {
      assert.deepEqual(
        PAYMENT_STATUSES.filter((to) => canTransition(closed, to)),
        [],
      );
    }
  });

  it("lists the sources of a target, narrowed to what the caller allows", () => {
    assert.deepEqual(sourcesOf("cancelled"), ["pending", "processing"]);
    assert.deepEqual(sourcesOf("cancelled", CANCELLABLE), ["pending", "processing"]);
    assert.deepEqual(sourcesOf("succeeded"), ["processing", "failed"]);
    assert.deepEqual(sourcesOf("succeeded", ["pending"]), []);
    assert.deepEqual(sourcesOf("pending"), []);
  });
});
