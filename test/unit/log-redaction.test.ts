import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutLinkToken } from "../../src/http/logger.ts";

describe("link tokens never reach the log", () => {
  it("replaces the token of payment, return and invite links, however the path is encoded", () => {
    const token = "pX71V9HbLEwFSMntzQm0Bp_Q2oFdDoCw";
    for (const path of [
      `/pay/${token}`,
      `/return/${token}`,
      `/dashboard/invite/${token}`,
      `/operator/invite/${token}`,
      `/%70ay/${token}`,
      `/%70%61%79/${token}`,
      `/dashboard/%69nvite/${token}`,
      `/dashboard%2Finvite/${token}`,
      `/return/${token}?x=1`,
    ]) {
      const logged = withoutLinkToken(path);
      assert.ok(!logged.includes(token), `${path} logged as ${logged}`);
      assert.match(logged, /\[token\]/);
    }
  });

  it("leaves other paths as they are, and never throws on a path that does not decode", () => {
    assert.equal(withoutLinkToken("/api/v1/payments/abc?x=%20"), "/api/v1/payments/abc?x=%20");
    assert.equal(withoutLinkToken("/pay/%E0%A4%A"), "/pay/[undecodable]");
  });
});
