// GET /api/v1/payments, newest first, by keyset cursor, with filters.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("GET /api/v1/payments", () => {
  let service: TestService;
  let group: TestGroup;
  let other: TestGroup;
  const created: string[] = [];
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
    other = await service.createGroup({ name: "Other" });
    for (let i = 0; i < 25; i++) created.push((await service.createPayment(group)).body.data.transactionId);
    await service.createPayment(other);
    await service.api(group, "DELETE", `/api/v1/payments/${created[3]}`);
  });
  after(() => service.close());

  const list = (query = "") => service.api(group, "GET", `/api/v1/payments${query}`);

  it("pages newest first, 20 by default, every payment once, and only the caller's", async () => {
    const first = await list();
    assert.equal(first.status, 200);
    assert.equal(first.body.data.payments.length, 20);
    assert.equal(first.body.data.hasMore, true);
    assert.equal(first.body.data.payments[0].id, created[24]);
    const second = await list(`?after=${first.body.data.nextCursor}`);
    assert.equal(second.body.data.payments.length, 5);
    assert.equal(second.body.data.hasMore, false);
    assert.equal(second.body.data.nextCursor, null);
    const seen = [...first.body.data.payments, ...second.body.data.payments].map((p: { id: string }) => p.id);
    assert.deepEqual(seen, [...created].reverse());
    assert.equal(typeof first.body.data.payments[0].paidAfterCancel, "boolean");
    assert.equal(
      first.body.data.payments[0].processor,
      "stripe",
      "the processor whose link the customer gets",
    );
  });

  it("filters by status and by a time window (from inclusive, to exclusive)", async () => {
    const cancelled = await list("?status=cancelled");
    assert.deepEqual(
      cancelled.body.data.payments.map((p: { id: string }) => p.id),
      [created[3]],
    );
    const future = await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    assert.equal(future.body.data.payments.length, 0);
    const past = await list(`?to=${encodeURIComponent("2020-01-01T00:00:00Z")}&limit=100`);
    assert.equal(past.body.data.payments.length, 0);
    const limited = await list("?limit=3");
    assert.equal(limited.body.data.payments.length, 3);
  });

  it("answers 400 INVALID_REQUEST for a bad status, time, limit or cursor", async () => {
    const foreign = (await service.api(other, "GET", "/api/v1/payments")).body.data.payments[0].id;
    for (const query of [
      "?status=paid",
      "?from=yesterday",
      "?to=2026-13-01T00:00:00Z",
      "?limit=0",
      "?limit=101",
      "?limit=abc",
      "?limit=1.5",
      "?after=not-a-cursor",
      "?after=00000000-0000-4000-8000-000000000000",
      `?after=${foreign}`,
    ]) {
      const answer = await list(query);
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.error.code, "INVALID_REQUEST", query);
    }
    assert.equal((await service.request("GET", "/api/v1/payments")).status, 401);
  });
});

describe("the service's own address", () => {
  it("answers / with a page of links to the dashboard, the console and the API reference", async () => {
    const service = await startTestService();
    try {
      const page = await service.request("GET", "/");
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type") ?? "", /text\/html/);
      for (const link of ["/dashboard", "/operator", "/docs"])
        assert.match(String(page.body), new RegExp(`href="${link}"`));
    } finally {
      await service.close();
    }
  });
});
