import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { loggedUrl, loggerOptions } from "../../../src/platform/http/logger.ts";
import { PROCESSOR_CATALOG } from "../../../src/processor/catalog.ts";

describe("link tokens and search terms never reach the log", () => {
  it("logs filter and page values, and replaces any other query value (a search may be an e-mail)", () => {
    assert.equal(
      loggedUrl("/dashboard/payments?q=Erin.Quill%40Example.COM&status=succeeded&after=abc"),
      "/dashboard/payments?q=[redacted]&status=succeeded&after=abc",
    );
    assert.equal(loggedUrl("/api/v1/payments/abc?x=%20&flag"), "/api/v1/payments/abc?x=[redacted]&flag");
    assert.equal(loggedUrl("/return/tok?email=a%40b.c"), "/return/[token]?email=[redacted]");
  });

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
      const logged = loggedUrl(path);
      assert.ok(!logged.includes(token), `${path} logged as ${logged}`);
      assert.match(logged, /\[token\]/);
    }
  });

  it("leaves other paths as they are, and never throws on a path that does not decode", () => {
    assert.equal(
      loggedUrl("/api/v1/payments/abc?status=succeeded&limit=5"),
      "/api/v1/payments/abc?status=succeeded&limit=5",
    );
    assert.equal(loggedUrl("/pay/%E0%A4%A"), "/pay/[undecodable]");
  });

  it("hides every processor's signature header the catalog names, and the merchant's keys", () => {
    const lines: string[] = [];
    const hidden = PROCESSOR_CATALOG.flatMap((processor) => processor.hiddenHeaders);
    assert.ok(hidden.length >= PROCESSOR_CATALOG.length, "each processor names its signature header");
    const { log } = Fastify({
      logger: {
        ...loggerOptions("info", hidden, false),
        serializers: { req: (request) => ({ ...request }) },
        stream: { write: (line: string) => void lines.push(line) },
      },
    });
    const headers = Object.fromEntries(
      [...hidden, "x-secret-key", "authorization"].map((name) => [name, `secret-${name}`]),
    );
    log.info({ req: { headers: { ...headers, "user-agent": "kept" } } }, "incoming");
    const logged = lines.join("");
    for (const name of Object.keys(headers))
      assert.ok(!logged.includes(`secret-${name}`), `${name}: ${logged}`);
    assert.ok(logged.includes("kept"), "the rest of the request is logged");
  });
});
