// Payment links through the merchant API, and the payments made through them (docs/api.md,
// "Payment links").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("payment links: the API", () => {
  let service: TestService;
  let group: TestGroup;
  let other: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Link shop" });
    other = await service.createGroup({ name: "Another shop" });
  });
  after(() => service.close());

  const create = (body: Record<string, unknown>, who = group) =>
    service.api(who, "POST", "/api/v1/payment-links", body);

  it("makes a fixed link: 201, on the group's SafeSite, nothing paid yet, and audited", async () => {
    const made = await create({ name: "Gift card", currency: "USD", amount: 2500, description: "A gift" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const link = made.body.data;
    assert.match(link.url, new RegExp(`^${group.safeSites[0]?.url}/l/[A-Za-z0-9_-]{22}$`));
    assert.deepEqual(
      { ...link, linkId: undefined, url: undefined, createdAt: undefined },
      {
        linkId: undefined,
        url: undefined,
        createdAt: undefined,
        name: "Gift card",
        currency: "usd",
        amount: 2500,
        minAmount: null,
        maxAmount: null,
        description: "A gift",
        successUrl: null,
        metadata: null,
        active: true,
        paymentCount: 0,
        amountPaid: 0,
      },
    );
    const audit = await service.services.db.query<{ action: string; target: string }>(
      "SELECT action, target FROM audit_log WHERE group_id = $1 AND action LIKE 'payment_link.%'",
      [group.groupId],
    );
    assert.deepEqual(audit, [{ action: "payment_link.created", target: link.linkId }]);
  });

  it("makes a link whose amount the customer chooses, between 1.00 and 999,999.99 unless told", async () => {
    const open = (await create({ name: "Donation", currency: "cad" })).body.data;
    assert.deepEqual([open.amount, open.minAmount, open.maxAmount], [null, 100, 99999999]);
    const bounded = (await create({ name: "Tip", currency: "usd", minAmount: 500, maxAmount: 5000 })).body
      .data;
    assert.deepEqual([bounded.minAmount, bounded.maxAmount], [500, 5000]);
  });

  it("refuses what it cannot take, with a 400 and nothing made", async () => {
    const before = await service.services.db.query("SELECT 1 FROM payment_links WHERE group_id = $1", [
      other.groupId,
    ]);
    for (const body of [
      { name: "Both", currency: "usd", amount: 100, minAmount: 50 },
      { name: "Both", currency: "usd", amount: 100, maxAmount: 500 },
      { name: "Upside down", currency: "usd", minAmount: 5000, maxAmount: 500 },
      { name: "", currency: "usd", amount: 100 },
      { name: "x".repeat(201), currency: "usd", amount: 100 },
      { name: "Euro", currency: "eur", amount: 100 },
      { name: "Text", currency: "usd", amount: "12.50" },
      { name: "Zero", currency: "usd", amount: 0 },
      { name: "Huge", currency: "usd", amount: 100_000_000 },
      { name: "Bad URL", currency: "usd", amount: 100, successUrl: "javascript:alert(1)" },
      { currency: "usd", amount: 100 },
    ]) {
      const answer = await create(body, other);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.code, "INVALID_REQUEST", JSON.stringify(body));
    }
    const after = await service.services.db.query("SELECT 1 FROM payment_links WHERE group_id = $1", [
      other.groupId,
    ]);
    assert.equal(after.length, before.length);
  });

  it("lists newest first a page at a time, and knows only the group's own links", async () => {
    const names = ["First", "Second", "Third"];
    for (const name of names) await create({ name, currency: "usd", amount: 100 }, other);
    const first = await service.api(other, "GET", "/api/v1/payment-links?limit=2");
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.links.map((link: { name: string }) => link.name),
      ["Third", "Second"],
    );
    assert.equal(first.body.data.hasMore, true);
    const next = await service.api(
      other,
      "GET",
      `/api/v1/payment-links?limit=2&after=${first.body.data.nextCursor}`,
    );
    assert.deepEqual(
      next.body.data.links.map((link: { name: string }) => link.name),
      ["First"],
    );
    assert.equal(next.body.data.hasMore, false);
    const theirs = first.body.data.links[0].linkId;
    assert.equal((await service.api(group, "GET", `/api/v1/payment-links/${theirs}`)).status, 404);
    assert.equal(
      (await service.api(group, "PATCH", `/api/v1/payment-links/${theirs}`, { active: false })).status,
      404,
    );
    assert.equal((await service.api(group, "GET", `/api/v1/payment-links?after=${theirs}`)).status, 400);
    assert.equal((await service.api(group, "GET", "/api/v1/payment-links/not-an-id")).status, 404);
  });

  it("changes a link's name and description, and deactivates it", async () => {
    const link = (await create({ name: "Old", currency: "usd", amount: 100, description: "Gone soon" })).body
      .data;
    const changed = await service.api(group, "PATCH", `/api/v1/payment-links/${link.linkId}`, {
      name: "New",
      description: null,
      active: false,
    });
    assert.equal(changed.status, 200);
    assert.deepEqual(
      [changed.body.data.name, changed.body.data.description, changed.body.data.active],
      ["New", null, false],
    );
  });

  it("a form post makes a normal payment that carries the link, and the link counts it once paid", async () => {
    const link = (await create({ name: "Mug", currency: "usd", amount: 1800, metadata: { sku: "MUG-1" } }))
      .body.data;
    const path = new URL(link.url).pathname;
    const posted = await service.request("POST", path, {
      rawBody: new URLSearchParams({ email: "buyer@example.com", key: "k".repeat(22) }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(posted.status, 303, String(posted.body));
    const checkout = posted.headers.get("location") ?? "";
    assert.match(checkout, /\/checkout\//, "straight to the processor's page");
    // A second press of the button (same form key) is the same payment.
    const again = await service.request("POST", path, {
      rawBody: new URLSearchParams({ email: "buyer@example.com", key: "k".repeat(22) }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(again.headers.get("location"), checkout);

    const listed = await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${link.linkId}`);
    assert.equal(listed.body.data.payments.length, 1);
    const payment = listed.body.data.payments[0];
    assert.equal(payment.paymentLinkId, link.linkId);
    assert.equal(payment.amount, 1800);
    assert.equal(payment.customerEmail, "buyer@example.com");
    assert.deepEqual(payment.metadata, { sku: "MUG-1" });
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments/${payment.id}`)).body.data.paymentLinkId,
      link.linkId,
    );
    const byApi = (await service.createPayment(group)).body.data.transactionId;
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments/${byApi}`)).body.data.paymentLinkId,
      null,
    );
    assert.equal(
      (await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${link.linkId}`)).body.data.payments
        .length,
      1,
      "the filter leaves out payments made through the API",
    );

    await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
      outcome: "succeeded",
    });
    const counted = await waitFor(async () => {
      const read = (await service.api(group, "GET", `/api/v1/payment-links/${link.linkId}`)).body.data;
      return read.paymentCount === 1 ? read : undefined;
    });
    assert.equal(counted.amountPaid, 1800);
  });
});
