// What a developer reads first: the start banner's hint about private hosts, and a warning on
// a Node the service does not support.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { unsupportedNodeWarning, welcomeText } from "../../src/server/welcome.ts";

describe("the start banner", () => {
  it("suggests the example shop's host only while no private host is allowed", () => {
    const none = welcomeText("http://localhost:3000", 3000, [], undefined, null);
    assert.match(none, /ALLOWED_PRIVATE_HOSTS=localhost:4242 npm start/);
    const elsewhere = welcomeText("http://localhost:3000", 3000, ["localhost:5000"], undefined, null);
    assert.doesNotMatch(elsewhere, /4242/);
    assert.match(elsewhere, /private hosts \(ALLOWED_PRIVATE_HOSTS\): localhost:5000/);
  });
});

describe("the Node version", () => {
  it("warns on Node 20 and says what to use; says nothing on 22 or 24", () => {
    assert.match(
      unsupportedNodeWarning("20.19.2") ?? "",
      /^Node 20\.19\.2 is not supported .* use Node 24 or 22/,
    );
    assert.equal(unsupportedNodeWarning("22.12.0"), undefined);
    assert.equal(unsupportedNodeWarning("24.1.0"), undefined);
  });
});
