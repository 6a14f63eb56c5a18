import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { holdLoads } from "../../src/webhooks/pace.ts";

describe("how many claimed deliveries a receiver may hold", () => {
  it("a receiver not yet timed gets the least, four slot-loads", () => {
    assert.equal(holdLoads(10, undefined), 4);
  });

  it("a slow receiver keeps the least, so its waiting deliveries are sent inside their lease", () => {
    assert.equal(holdLoads(10, 400), 4);
    assert.equal(holdLoads(10, 10_000), 4);
  });

  it("a fast one holds enough, at its refill mark, to outlast a claim's round trip", () => {
    // Refilled at half: four loads left when a 6 ms claim is asked, each lasting 2 ms.
    assert.equal(holdLoads(6, 2), 8);
    assert.equal(holdLoads(12, 2), 14);
  });

  it("never more than sixteen, however fast the receiver or slow the claim", () => {
    assert.equal(holdLoads(25, 1), 16);
    assert.equal(holdLoads(8, 0), 16);
  });
});
