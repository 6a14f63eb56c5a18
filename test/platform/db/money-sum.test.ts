import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { moneySum } from "../../../src/platform/db/money-sum.ts";

describe("a sum of money columns", () => {
  it("reads as a number however the driver gives it", () => {
    assert.equal(moneySum("199900000"), 199_900_000);
    assert.equal(moneySum(4200), 4200);
    assert.equal(moneySum(12n), 12);
  });

  it("is refused rather than rounded past 2^53", () => {
    assert.throws(() => moneySum("9007199254740993"), RangeError);
  });
});
