import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import {
  type JsonResponse,
  startTestService,
  type TestGroup,
  type TestService,
  validPayment,
} from "../../helpers/service.ts";

describe("malformed, oversized and hostile input", () => {
  let service: TestService;
  let group: TestGroup;
  let keys: Record<string, string>;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
    keys = { "x-public-key": group.publicKey, "x-secret-key": group.secretKey };
  });
  after(() => service.close());

  const countPayments = async () =>
    Number((await service.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payments"))[0]?.n);

  const expectEnvelope = (response: JsonResponse, status: number, code: string) => {
    assert.equal(response.status, status, JSON.stringify(response.body));
    assert.equal(response.body.success, false);
    assert.equal(response.body.error.code, code);
    assert.equal(typeof response.body.error.message, "string");
  };

  const raw = (rawBody: string, contentType = "application/json") =>
    service.request("POST", "/api/v1/payments/create", {
      rawBody,
      headers: { ...keys, "content-type": contentType },
    });

  it("answers invalid JSON with 400 INVALID_REQUEST", async () => {
    for (const body of ["{", "{'amount': 1}", "[1,2", "nul", '{"amount":1999,}', "\u0000"]) {
      expectEnvelope(await raw(body), 400, "INVALID_REQUEST");
    }
  });

  it("answers JSON that is not an object with 400", async () => {
    for (const body of ["[]", "null", "1999", '"text"', "true", "[{}]"]) {
      expectEnvelope(await raw(body), 400, "INVALID_REQUEST");
    }
  });

  it("refuses prototype pollution keys", async () => {
    expectEnvelope(await raw('{"__proto__": {"admin": true}, "amount": 1}'), 400, "INVALID_REQUEST");
    expectEnvelope(
      await raw(JSON.stringify({ ...validPayment(), constructor: { prototype: { x: 1 } } })),
      400,
      "INVALID_REQUEST",
    );
  });

  it("answers a huge body with 413 PAYLOAD_TOO_LARGE", async () => {
    const huge = JSON.stringify({ ...validPayment(), description: "x".repeat(2_000_000) });
    expectEnvelope(await raw(huge), 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers a non-JSON content type with 415", async () => {
    expectEnvelope(
      await raw("amount=1999", "application/x-www-form-urlencoded"),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectEnvelope(await raw("hello", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("handles odd unicode in text fields without corrupting it", async () => {
    const description = "☕ Grüße — 𝄞 \u202e RTL \u200b zero-width";
    const response = await service.createPayment(group, {
      description,
      customerName: "Zoë 山田",
      metadata: { ключ: "値" },
    });
    assert.equal(response.status, 200);
    const read = await service.api(group, "GET", `/api/v1/payments/${response.body.data.transactionId}`);
    assert.equal(read.body.data.description, description);
    assert.deepEqual(read.body.data.metadata, { ключ: "値" });
    expectEnvelope(await raw('{"description":"\\ud800"}'), 400, "INVALID_REQUEST");
  });

  it("answers unknown routes and methods with the envelope", async () => {
    expectEnvelope(await service.request("GET", "/api/v1/nope"), 404, "NOT_FOUND");
    expectEnvelope(
      await service.request("PUT", "/api/v1/payments/create", { headers: keys, body: {} }),
      404,
      "NOT_FOUND",
    );
  });

  it("refuses NUL characters and unpaired surrogates in every string, keys included, writing nothing", async () => {
    const before = await countPayments();
    for (const overrides of [
      { description: "a\u0000b" },
      { customerName: "\u0000" },
      { customerEmail: "ja\u0000ne@example.com" },
      { successUrl: "https://shop.example.com/\u0000" },
      { metadata: { order: "x\u0000" } },
      { metadata: { "k\u0000": "x" } },
      { metadata: { order: "\ud800" } },
      { metadata: { order: "\udc00 tail" } },
    ]) {
      expectEnvelope(await service.createPayment(group, overrides), 400, "INVALID_REQUEST");
    }
    assert.equal(await countPayments(), before);
    const group2 = await service.admin("POST", "/admin/v1/groups", { name: "Shop\u0000" });
    expectEnvelope(group2, 400, "INVALID_REQUEST");
  });

  it("refuses a deeply nested value even in an ignored field, with an Idempotency-Key", async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const body = JSON.stringify(validPayment()).replace(/^\{/, `{"ignored":${deep},`);
    const response = await service.request("POST", "/api/v1/payments/create", {
      rawBody: body,
      headers: { ...keys, "content-type": "application/json", "idempotency-key": "deep-1" },
    });
    expectEnvelope(response, 400, "INVALID_REQUEST");
  });

  it("refuses a since the database cannot store", async () => {
    for (const since of ["0000-01-01T00:00:00Z", "1969-12-31T23:59:59Z"]) {
      const response = await service.api(group, "GET", `/api/v1/events?since=${encodeURIComponent(since)}`);
      expectEnvelope(response, 400, "INVALID_REQUEST");
    }
  });

  it("answers URLs the router cannot take with the envelope, and customer paths with a page", async () => {
    expectEnvelope(await service.api(group, "GET", "/api/v1/payments/%E0%A4%A"), 400, "INVALID_REQUEST");
    expectEnvelope(await service.api(group, "GET", `/api/v1/payments/${"a".repeat(150)}`), 404, "NOT_FOUND");
    for (const path of ["/pay/%E0%A4%A", `/pay/${"a".repeat(150)}`, `/return/${"b".repeat(150)}`]) {
      const page = await service.request("GET", path);
      assert.equal(page.status, 404, path);
      assert.match(page.headers.get("content-type") ?? "", /text\/html/, path);
      assert.match(String(page.body), /<h1>Payment link not found<\/h1>/, path);
      // The pages' one kit: its stylesheet by hash, nothing inline allowed.
      assert.doesNotMatch(page.headers.get("content-security-policy") ?? "", /unsafe-inline/, path);
    }
    for (const [path, home] of [
      ["/dashboard/no-such-page", "/dashboard"],
      ["/operator/no-such-page", "/operator"],
    ]) {
      const page = await service.request("GET", path as string);
      assert.equal(page.status, 404, path);
      assert.match(
        String(page.body),
        new RegExp(`<h1>Page not found</h1><p><a href="${home}">Back</a>`),
        path,
      );
    }
  });

  it("treats the same body with its keys in another order as the same request", async () => {
    const headers = { "idempotency-key": "reordered-1" };
    const first = await service.api(
      group,
      "POST",
      "/api/v1/payments/create",
      validPayment({ metadata: { a: 1, b: 2 } }),
      headers,
    );
    const body = validPayment({ metadata: { b: 2, a: 1 } });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await service.api(group, "POST", "/api/v1/payments/create", reordered, headers);
    assert.equal(first.status, 200);
    assert.deepEqual(second.body, first.body);
  });

  it("never answers 500 and never writes a record for any invalid body (property)", async () => {
    const before = await countPayments();
    const anything = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    );
    const mutated = fc
      .record({
        amount: anything,
        currency: fc.oneof(anything, fc.constantFrom("usd", "USD", "cad", "eur", "")),
        successUrl: fc.oneof(anything, fc.webUrl()),
        cancelUrl: fc.oneof(anything, fc.webUrl()),
        customerEmail: fc.oneof(anything, fc.emailAddress()),
        metadata: anything,
        description: anything,
      })
      .filter(
        // Keep only bodies that break at least one rule, so none of them may create a payment.
        (body) =>
          !(
            Number.isInteger(body.amount) &&
            (body.amount as number) >= 1 &&
            (body.amount as number) <= 99999999
          ) || typeof body.currency !== "string",
      );
    await fc.assert(
      fc.asyncProperty(mutated, async (body) => {
        const response = await service.api(group, "POST", "/api/v1/payments/create", body);
        assert.ok(
          response.status >= 400 && response.status < 500,
          `${response.status} for ${JSON.stringify(body)}`,
        );
        assert.equal(response.body.success, false);
        assert.equal(typeof response.body.error.code, "string");
      }),
      { numRuns: 150 },
    );
    assert.equal(await countPayments(), before);
  });
});
