import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestService } from "../helpers/service.ts";

describe("health and API description", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it("GET /health reports ok with version and database latency", async () => {
    const { status, body } = await service.request("GET", "/health");
    assert.equal(status, 200);
    assert.equal(body.status, "ok");
    assert.equal(body.version, "1.0.0");
    assert.ok(Math.abs(Date.parse(body.timestamp) - Date.now()) < 5000);
    assert.equal(body.checks.database.status, "ok");
    assert.ok(Number.isInteger(body.checks.database.latencyMs));
  });

  it("serves OpenAPI 3.1 generated from the route schemas, and a docs page", async () => {
    const { status, body } = await service.request("GET", "/openapi.json");
    assert.equal(status, 200);
    assert.equal(body.openapi, "3.1.0");
    const create = body.paths["/api/v1/payments/create"].post;
    assert.deepEqual(create.requestBody.content["application/json"].schema.required, [
      "amount",
      "currency",
      "successUrl",
      "cancelUrl",
    ]);
    assert.equal(create.requestBody.content["application/json"].schema.properties.amount.maximum, 99999999);
    assert.ok(body.paths["/api/v1/payments/{id}"].get);
    assert.ok(body.paths["/api/v1/payments/{id}"].delete);
    assert.ok(body.paths["/api/v1/auth/test"].get);
    assert.equal(
      body.paths["/health/ready"],
      undefined,
      "probes are for infrastructure, documented in docs/deploy.md",
    );
    const docs = await service.request("GET", "/docs/");
    assert.equal(docs.status, 200);
    assert.match(String(docs.body), /swagger/i);
    assert.equal(docs.headers.get("x-frame-options"), "DENY");
    assert.match(docs.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  });
});

describe("/metrics behind METRICS_TOKEN", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ METRICS_TOKEN: "metrics-secret-token" });
  });
  after(() => service.close());

  it("refuses a scrape without the token, and serves one with it", async () => {
    const anonymous = await service.request("GET", "/metrics");
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, "UNAUTHORIZED");
    const wrong = await service.request("GET", "/metrics", { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    const scraped = await service.request("GET", "/metrics", {
      headers: { authorization: "Bearer metrics-secret-token" },
    });
    assert.equal(scraped.status, 200);
    assert.match(String(scraped.body), /webhook_queue_depth \d+/);
  });
});
