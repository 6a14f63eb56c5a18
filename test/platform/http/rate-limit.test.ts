import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { needsRedis, REDIS_TEST_URL } from "../../helpers/requirements.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

const redisSkip = await needsRedis();

for (const store of ["memory", "redis"] as const) {
  describe(`rate limit per API key (${store} store)`, { skip: store === "redis" && redisSkip }, () => {
    let service: TestService;
    let group: TestGroup;
    let otherGroup: TestGroup;
    before(async () => {
      service = await startTestService({
        RATE_LIMIT_MAX: "5",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        ...(store === "redis" && { REDIS_URL: REDIS_TEST_URL }),
      });
      group = await service.createGroup();
      otherGroup = await service.createGroup();
      // Keys are fresh per run, so counters left in Redis by other runs cannot interfere.
    });
    after(() => service.close());

    it("answers 429 RATE_LIMIT_EXCEEDED with Retry-After once a key uses its budget", async () => {
      const statuses = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await service.api(group, "GET", "/api/v1/auth/test")).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      const limited = await service.api(group, "GET", "/api/v1/auth/test");
      assert.equal(limited.body.error.code, "RATE_LIMIT_EXCEEDED");
      assert.ok(Number(limited.headers.get("retry-after")) > 0);
      assert.equal(
        (await service.api(otherGroup, "GET", "/api/v1/auth/test")).status,
        200,
        "other keys unaffected",
      );
      assert.equal((await service.request("GET", "/health")).status, 200, "health is not limited");
    });
  });
}

describe("rate limit with REDIS_URL unreachable", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    // Port 1 on loopback: nothing listens there, so every connection attempt is refused.
    service = await startTestService({ RATE_LIMIT_MAX: "3", REDIS_URL: "redis://127.0.0.1:1" });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("still limits, counting in this instance's memory, and /health says Redis is unavailable", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await service.api(group, "GET", "/api/v1/auth/test")).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const health = await service.request("GET", "/health");
    assert.equal(health.status, 200, "the fallback keeps the service healthy");
    assert.equal(health.body.checks.redis.status, "unavailable");
  });
});
