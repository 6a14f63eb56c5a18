// Erasing a customer (docs/security.md, "Erasure"): the payments keep their bookkeeping, the person
// goes from every table and every answer, and the request is audited with a keyed hash only.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SecretBox } from "../../src/platform/crypto/secret-box.ts";
import { tablesHolding } from "../helpers/customer-traces.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, TEST_SECRETS_KEY, type TestGroup, type TestService } from "../helpers/service.ts";
import { smtpListener } from "../helpers/smtp.ts";
import { waitFor } from "../helpers/wait.ts";

const EMAIL = "Erin.Quill@Example.COM";
const NAME = "Erin Quill";
const DESCRIPTION = "Blue glazed vase";

describe("customer erasure", () => {
  let service: TestService;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  let shop: TestGroup;
  let other: TestGroup;

  before(async () => {
    smtp = await smtpListener();
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    service = await startTestService({
      ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host,
      SMTP_URL: smtp.url,
    });
    shop = await service.createGroup({ name: "Vase shop" });
    other = await service.createGroup({ name: "Other shop" });
    assert.equal((await service.api(shop, "PUT", "/api/v1/branding", { receipts: true })).status, 200);
  });
  after(async () => {
    await service.close();
    await receiver.stop();
    await smtp.close();
  });

  const status = async (group: TestGroup, id: string) =>
    (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data.status as string;

  it("takes the customer out of every table and answer, keeps the bookkeeping, and audits a keyed hash", async () => {
    const paid = (
      await service.createPayment(
        shop,
        {
          customerEmail: EMAIL,
          customerName: NAME,
          description: DESCRIPTION,
          metadata: { order: "A-1" },
          webhookUrl: `${receiver.url}/hook`,
        },
        { "idempotency-key": "erase-1" },
      )
    ).body.data;
    await service.sandboxPost(`/sandbox/sessions/${paid.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () => ((await status(shop, paid.transactionId)) === "succeeded" ? true : undefined));
    const refund = await service.api(shop, "POST", `/api/v1/payments/${paid.transactionId}/refunds`, {
      amount: 500,
    });
    assert.equal(refund.status, 201);
    await waitFor(async () =>
      (await status(shop, paid.transactionId)) === "partially_refunded" ? true : undefined,
    );
    await waitFor(async () =>
      smtp.messages.filter((m) => m.to.some((to) => to.toLowerCase() === EMAIL.toLowerCase())).length >= 2
        ? true
        : undefined,
    );
    await waitFor(async () => (receiver.at("/hook").length >= 2 ? true : undefined));
    const open = (
      await service.createPayment(shop, { customerEmail: EMAIL.toLowerCase(), customerName: NAME })
    ).body.data;
    const untouched = (await service.createPayment(shop, { customerEmail: "someone.else@example.com" })).body
      .data;
    const elsewhere = (await service.createPayment(other, { customerEmail: EMAIL })).body.data;
    assert.ok((await tablesHolding(service.services.db, EMAIL)).includes("payments"));

    const answer = await service.api(shop, "POST", "/api/v1/customers/erase", {
      email: "erin.quill@example.com",
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { success: true, data: { erased: { payments: 2 } } });

    const erased = (await service.api(shop, "GET", `/api/v1/payments/${paid.transactionId}`)).body.data;
    assert.equal("customerEmail" in erased, false);
    assert.equal(erased.description, null);
    assert.equal(erased.metadata, null);
    assert.match(erased.erasedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(erased.status, "partially_refunded", "the bookkeeping stays");
    assert.equal(erased.amount, 1999);
    assert.equal(erased.amountRefunded, 500);
    assert.equal(
      (await service.api(shop, "GET", `/api/v1/payments/${paid.transactionId}/refunds`)).body.data.refunds
        .length,
      1,
    );
    assert.equal(
      (await service.api(shop, "GET", `/api/v1/payments/${open.transactionId}`)).body.data.customerEmail,
      undefined,
    );
    assert.equal(
      (await service.api(shop, "GET", `/api/v1/payments/${untouched.transactionId}`)).body.data.customerEmail,
      "someone.else@example.com",
    );
    assert.equal(
      (await service.api(other, "GET", `/api/v1/payments/${elsewhere.transactionId}`)).body.data
        .customerEmail,
      EMAIL,
      "another group's customer of the same address is that group's to erase",
    );
    for (const path of [
      "/api/v1/events",
      `/api/v1/payments/${paid.transactionId}/events`,
      "/api/v1/payments",
    ]) {
      const text = JSON.stringify((await service.api(shop, "GET", path)).body).toLowerCase();
      for (const needle of [EMAIL, NAME, DESCRIPTION])
        assert.ok(!text.includes(needle.toLowerCase()), `${path}: ${needle}`);
    }
    const sandboxRequests = JSON.stringify(
      await (await fetch(`${service.sandboxUrl}/sandbox/requests`)).json(),
    ).toLowerCase();
    assert.ok(!sandboxRequests.includes(EMAIL.toLowerCase()), "the sandbox's recorded requests forgot it");

    // A resend carries what the stored body holds now.
    const events = (await service.api(shop, "GET", `/api/v1/payments/${paid.transactionId}/events`)).body
      .data;
    const sentBefore = receiver.at("/hook").length;
    const resend = await service.api(
      shop,
      "POST",
      `/api/v1/payments/${paid.transactionId}/events/${events[0].id}/resend`,
    );
    assert.equal(resend.status, 202, JSON.stringify(resend.body));
    const [resent] = await waitFor(async () => {
      const all = receiver.at("/hook");
      return all.length > sentBefore ? all.slice(sentBefore) : undefined;
    });
    const resentBody = JSON.parse(resent?.body ?? "{}");
    assert.equal("customerEmail" in resentBody, false);
    assert.equal("metadata" in resentBody, false);
    assert.equal(resentBody.transactionId, paid.transactionId);

    const [entry] = await service.services.db.query<{
      group_id: string;
      actor: string;
      detail: Record<string, unknown>;
    }>("SELECT group_id, actor, detail FROM audit_log WHERE action = 'customer.erased'");
    assert.equal(entry?.group_id, shop.groupId);
    assert.equal(entry?.actor, `api_key:${shop.publicKey}`);
    assert.equal(entry?.detail.payments, 2);
    const box = new SecretBox([Buffer.from(TEST_SECRETS_KEY, "base64")]);
    assert.equal(entry?.detail.emailHash, box.keyedDigest("customer-erasure", EMAIL.toLowerCase()));

    const again = await service.api(shop, "POST", "/api/v1/customers/erase", { email: EMAIL });
    assert.deepEqual(again.body, { success: true, data: { erased: { payments: 0 } } });

    const everywhere = await service.admin("POST", "/admin/v1/customers/erase", { email: EMAIL });
    assert.deepEqual(everywhere.body, { success: true, data: { erased: { payments: 1 } } });
    for (const needle of [EMAIL, NAME, DESCRIPTION]) {
      assert.deepEqual(await tablesHolding(service.services.db, needle), [], `no table holds ${needle}`);
    }
  });

  it("refuses a malformed request with the error envelope and changes nothing", async () => {
    const before = await service.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log");
    for (const body of [
      {},
      { email: "not an address" },
      { email: 42 },
      { email: `${"a".repeat(250)}@example.com` },
    ]) {
      const answer = await service.api(shop, "POST", "/api/v1/customers/erase", body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
    }
    const unknownGroup = await service.admin("POST", "/admin/v1/customers/erase", {
      email: "a@example.com",
      groupId: "00000000-0000-4000-8000-000000000000",
    });
    assert.equal(unknownGroup.status, 404);
    const badGroup = await service.admin("POST", "/admin/v1/customers/erase", {
      email: "a@example.com",
      groupId: "x",
    });
    assert.equal(badGroup.status, 400);
    const unsigned = await service.request("POST", "/api/v1/customers/erase", {
      body: { email: "a@example.com" },
    });
    assert.equal(unsigned.status, 401);
    const after = await service.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log");
    assert.deepEqual(after, before);
  });
});

describe("customer erasure and the create attempts a failover gave up", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({ ABANDONED_CHECKOUT_SWEEP_MS: "300" });
    group = await service.createGroup({ name: "Failover shop" });
    await service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, {
      routes: [{ processors: ["stripe", "square"] }],
    });
  });
  after(() => service.close());

  const requestOf = async (email: string) =>
    service.services.db.query<{ closed_at: Date | null; request: Record<string, unknown> }>(
      "SELECT closed_at, request FROM abandoned_checkouts WHERE group_id = $1 AND request::text ILIKE $2",
      [group.groupId, `%${email}%`],
    );
  const closedAttempts = () =>
    waitFor(async () => {
      const [row] = await service.services.db.query<{ open: number }>(
        "SELECT count(*)::int AS open FROM abandoned_checkouts WHERE closed_at IS NULL",
      );
      return row?.open === 0 ? true : undefined;
    });

  it("scrubs attempts that left a payment or none, and one still open when it closes", async () => {
    await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
    // Stripe gave no answer, Square opened the checkout: an attempt at Stripe is remembered.
    const failedOver = await service.createPayment(group, { customerEmail: "failed.over@example.com" });
    assert.equal(failedOver.status, 200);
    // Erased while its attempt is still open: the attempt keeps its exact request until it closes.
    assert.equal(
      (await service.api(group, "POST", "/api/v1/customers/erase", { email: "failed.over@example.com" })).body
        .data.erased.payments,
      1,
    );
    await service.sandboxPost("/sandbox/faults", { processor: "square", checkouts: { mode: "outage" } });
    // Neither answered: no payment, two attempts remembered.
    const nowhere = await service.createPayment(group, { customerEmail: "no.payment@example.com" });
    assert.equal(nowhere.status, 502);
    assert.equal((await requestOf("no.payment@example.com")).length, 2);
    await service.sandboxDelete("/sandbox/faults");
    await closedAttempts();
    assert.deepEqual(await requestOf("failed.over@example.com"), [], "scrubbed when it closed");
    const erased = await service.api(group, "POST", "/api/v1/customers/erase", {
      email: "No.Payment@example.com",
    });
    assert.equal(erased.body.data.erased.payments, 0);
    assert.deepEqual(await requestOf("no.payment@example.com"), []);
    for (const email of ["failed.over@example.com", "no.payment@example.com"]) {
      assert.deepEqual(await tablesHolding(service.services.db, email), [], email);
    }
  });
});
