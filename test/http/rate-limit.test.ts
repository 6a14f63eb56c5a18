import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

for (const store of ["memory", "redis"] as const) {
  describe(`rate limit per API key (${store} store)`, () => {
    let service: TestService;
    let group: TestGroup;
    let otherGroup: TestGroup;
    before(async () => {
      service = await startTestService({
        RATE_LIMIT_MAX: "5",
        RATE_LIMIT_WINDOW_SECONDS: "60",
        ...(store === "redis" && { REDIS_URL: `redis://127.0.0.1:6379/0` }),
      });
      group = await service.createGroup();
      otherGroup = await service.createGroup();
      // Keys are fresh per run, so counters left in Redis by other runs cannot interfere.
      assert.ok(randomBytes);
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
