// A request that breaks a rule is told the rule in a sentence a person reads, one per field.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ruleOfPattern } from "../../../src/platform/http/validation-messages.ts";
import { startTestService, type TestGroup, type TestService, validPayment } from "../../helpers/service.ts";

describe("validation messages", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  const create = (overrides: Record<string, unknown>) =>
    service.api(group, "POST", "/api/v1/payments/create", validPayment(overrides));

  it("name the field and the rule it broke, in the message and in details", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ currency: "eur" }, "currency", "currency must be usd or cad"],
      [{ amount: undefined }, "amount", "amount is required"],
      [{ amount: "19.99" }, "amount", "amount must be a whole number of cents (minor units): 1999 for 19.99"],
      [{ amount: 19.99 }, "amount", "amount must be a whole number of cents (minor units): 1999 for 19.99"],
      [{ amount: 0 }, "amount", "amount must be at least 1"],
      [{ amount: 100_000_000 }, "amount", "amount must be at most 99999999"],
      [{ successUrl: "ftp://files.example/x" }, "successUrl", "successUrl must be an http or https URL"],
      [{ cancelUrl: "https://x" }, "cancelUrl", "cancelUrl must be at least 10 characters long"],
      [{ customerEmail: "nobody" }, "customerEmail", "customerEmail must be an e-mail address"],
      [{ description: 7 }, "description", "description must be text"],
      [
        { metadata: { ["k".repeat(101)]: "v" } },
        "metadata",
        "metadata keys must be at most 100 characters long",
      ],
    ];
    for (const [overrides, field, message] of cases) {
      const answer = await create(overrides);
      assert.equal(answer.status, 400, message);
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
      assert.equal(answer.body.error.message, message);
      assert.deepEqual(answer.body.error.details, [{ field, message }]);
    }
    const listed = await service.api(group, "GET", "/api/v1/payments");
    assert.equal(listed.body.data.payments.length, 0, "nothing was written");
  });

  it("say which query parameter, header or body is wrong", async () => {
    const limit = await service.api(group, "GET", "/api/v1/payments?limit=abc");
    assert.equal(limit.body.error.message, "limit must be a whole number from 1 to 100");
    const status = await service.api(group, "GET", "/api/v1/payments?status=paid");
    assert.match(status.body.error.message, /^status must be pending, processing, succeeded, .+ or [a-z_]+$/);
    const notAnObject = await service.api(group, "POST", "/api/v1/payments/create", [1, 2]);
    assert.equal(notAnObject.body.error.message, "the request body must be an object");
    const unnamed = await service.admin("POST", "/admin/v1/groups", { name: "" });
    assert.equal(unnamed.body.error.message, "name must not be empty");
    const site = await service.admin("POST", "/admin/v1/groups", {
      name: "Shop",
      safeSites: [{ name: "Main", url: "https://pay.shop.example/?q=1" }],
    });
    assert.equal(
      site.body.error.message,
      "safeSites.0.url must be an http or https URL with a host and, at most, a path (no query or fragment)",
    );
  });

  it("every pattern a request is checked against states its rule", async () => {
    const document = (await service.request("GET", "/openapi.json")).body as Record<string, unknown>;
    const patterns: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const schema = node as Record<string, unknown>;
        if (typeof schema.pattern === "string") patterns.push(schema.pattern);
        Object.values(schema).forEach(walk);
      }
    };
    for (const item of Object.values(document.paths as Record<string, Record<string, unknown>>)) {
      for (const operation of Object.values(item) as Record<string, unknown>[]) {
        walk(operation.parameters);
        walk(operation.requestBody);
      }
    }
    assert.ok(patterns.length > 5, "the document's requests hold patterns");
    assert.deepEqual(
      patterns.filter((pattern) => ruleOfPattern(pattern) === undefined),
      [],
    );
  });
});
