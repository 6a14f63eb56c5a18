import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type JsonResponse,
  startTestService,
  type TestGroup,
  type TestService,
} from "../../helpers/service.ts";

describe("merchant authentication", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({
      name: "Mugs & Co",
      safeSites: [
        { name: "Main", url: "https://pay.mugs.example" },
        { name: "Backup", url: "https://pay2.mugs.example" },
        { name: "Retired", url: "https://old.mugs.example", isActive: false },
      ],
    });
  });
  after(() => service.close());

  const expectUnauthorized = (response: JsonResponse) => {
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, {
      success: false,
      error: { code: "UNAUTHORIZED", message: "Missing or invalid API keys" },
    });
  };

  it("GET /api/v1/auth/test describes the group and counts active SafeSites", async () => {
    const response = await service.api(group, "GET", "/api/v1/auth/test");
    assert.equal(response.status, 200);
    const data = response.body.data;
    assert.equal(data.authenticated, true);
    assert.equal(data.groupId, group.groupId);
    assert.equal(data.groupName, "Mugs & Co");
    assert.equal(data.activeSafeSiteCount, 2);
    assert.deepEqual(
      data.safeSites.map((site: { name: string; isActive: boolean }) => [site.name, site.isActive]),
      [
        ["Main", true],
        ["Backup", true],
        ["Retired", false],
      ],
    );
    for (const site of data.safeSites) assert.deepEqual(Object.keys(site).sort(), ["id", "isActive", "name"]);
    assert.match(data.message, /\b2\b/);
  });

  it("answers 401 UNAUTHORIZED for missing, wrong, swapped and malformed keys on every merchant route", async () => {
    const routes: [string, string][] = [
      ["GET", "/api/v1/auth/test"],
      ["POST", "/api/v1/payments/create"],
      ["GET", "/api/v1/payments/6f1c3c52-7d43-4c59-9a34-0f1a2b3c4d5e"],
      ["DELETE", "/api/v1/payments/6f1c3c52-7d43-4c59-9a34-0f1a2b3c4d5e"],
    ];
    const credentials: Record<string, string>[] = [
      {},
      { "x-public-key": group.publicKey },
      { "x-secret-key": group.secretKey },
      { "x-public-key": group.publicKey, "x-secret-key": `${group.secretKey}x` },
      { "x-public-key": group.publicKey, "x-secret-key": group.secretKey.slice(0, -1) },
      { "x-public-key": group.secretKey, "x-secret-key": group.publicKey },
      { "x-public-key": "pk_unknown", "x-secret-key": group.secretKey },
      { "x-public-key": `${group.publicKey}' OR '1'='1`, "x-secret-key": "x" },
    ];
    for (const [method, path] of routes) {
      for (const headers of credentials) {
        expectUnauthorized(
          await service.request(method, path, { headers, body: method === "POST" ? {} : undefined }),
        );
      }
    }
  });

  it("a revoked key stops working at once; a new key pair works", async () => {
    const issued = await service.admin("POST", `/admin/v1/groups/${group.groupId}/keys`);
    assert.equal(issued.status, 201);
    const fresh = { ...group, ...issued.body.data };
    assert.equal((await service.api(fresh, "GET", "/api/v1/auth/test")).status, 200);
    assert.equal((await service.admin("DELETE", `/admin/v1/keys/${fresh.publicKey}`)).status, 200);
    expectUnauthorized(await service.api(fresh, "GET", "/api/v1/auth/test"));
    assert.equal((await service.api(group, "GET", "/api/v1/auth/test")).status, 200, "other keys unaffected");
  });

  it("stores secret keys only as hashes", async () => {
    const rows = await service.services.db.query<{ secret_hash: Uint8Array }>(
      "SELECT secret_hash FROM api_keys",
    );
    const dump = JSON.stringify(await service.services.db.query("SELECT * FROM api_keys"));
    assert.ok(!dump.includes(group.secretKey));
    for (const row of rows) assert.equal(Buffer.from(row.secret_hash).length, 32);
  });

  it("health endpoints need no keys", async () => {
    assert.equal((await service.request("GET", "/health")).status, 200);
    assert.equal((await service.request("GET", "/health/live")).body.status, "ok");
    assert.equal((await service.request("GET", "/health/ready")).body.status, "ready");
  });
});

describe("failed authentications are limited per client address", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({ AUTH_FAILURES_PER_MINUTE: "5" });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("answers 429 after the budget of failures, before looking any key up", async () => {
    const wrong = { ...group, secretKey: "sk_wrong" };
    const unknown = { ...group, publicKey: "pk_nobody_has_this_key" };
    const statuses = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await service.api(i % 2 ? wrong : unknown, "GET", "/api/v1/auth/test")).status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    const limited = await service.api(group, "GET", "/api/v1/auth/test");
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
  });
});
