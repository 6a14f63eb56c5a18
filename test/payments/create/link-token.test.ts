import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newLinkToken } from "../../../src/payments/create/link-token.ts";

describe("newLinkToken", () => {
  it("gives 24 random bytes as base64url, never the same twice across refills of its pool", () => {
    const tokens = Array.from({ length: 1000 }, newLinkToken);
    for (const token of tokens) {
      assert.match(token, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(Buffer.from(token, "base64url").length, 24);
    }
    assert.equal(new Set(tokens).size, tokens.length);
    // Bytes spread over all values: a pool handed out unfilled (zeros) or twice would not.
    const bytes = Buffer.concat(tokens.map((token) => Buffer.from(token, "base64url")));
    const seen = new Set(bytes);
    assert.equal(seen.size, 256);
  });
});
