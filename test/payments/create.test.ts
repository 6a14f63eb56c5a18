import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProcessorRefusedError, ProcessorUnavailableError } from "../../src/processor/port.ts";
import { unreachableProcessor } from "../helpers/processor.ts";
import { startTestService, type TestGroup, type TestService, validPayment } from "../helpers/service.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("POST /api/v1/payments/create", () => {
  let service: TestService;
  let group: TestGroup;
  const countPayments = async () =>
    Number((await service.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payments"))[0]?.n);

  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "1800", ALLOWED_PRIVATE_HOSTS: "127.0.0.1:9" });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("creates a processing payment with a link on the SafeSite and the session at the processor", async () => {
    const before = Date.now();
    const response = await service.createPayment(group);
    assert.equal(response.status, 200);
    assert.equal(response.body.success, true);
    const { transactionId, paymentUrl, sessionId, expiresAt } = response.body.data;
    assert.match(transactionId, UUID);
    assert.ok(paymentUrl.startsWith(`${service.url}/pay/`), paymentUrl);
    assert.match(sessionId, /^cs_test_/);
    const expiry = Date.parse(expiresAt);
    assert.ok(expiry >= before + 1800_000 - 1000 && expiry <= Date.now() + 1800_000 + 1000);
    assert.match(expiresAt, /Z$/);

    const read = await service.api(group, "GET", `/api/v1/payments/${transactionId}`);
    assert.equal(read.body.data.status, "processing");
    assert.equal(read.body.data.processorSessionId, sessionId);
    assert.equal(read.body.data.completedAt, null);

    // The processor never sees the merchant's URLs: only our /return/ link.
    const session = service.sandbox?.state.sessions.get(sessionId);
    assert.ok(session);
    assert.ok(session.success_url.startsWith(`${service.url}/return/`));
    assert.equal(session.cancel_url, session.success_url);
    assert.deepEqual(session.metadata, { transactionId });
    assert.equal(session.amount_total, 1999);
    assert.equal(session.customer_email, "jane@example.com");
    assert.equal(session.expires_at, Math.floor(expiry / 1000));
    const recorded = JSON.stringify(service.sandbox?.state.requests);
    assert.ok(!recorded.includes("shop.example.com"), "merchant URLs must not reach the processor");
  });

  it("accepts the currency in any case and stores it lowercase", async () => {
    for (const currency of ["USD", "Cad", "cAd"]) {
      const response = await service.createPayment(group, { currency });
      assert.equal(response.status, 200, currency);
      const read = await service.api(group, "GET", `/api/v1/payments/${response.body.data.transactionId}`);
      assert.equal(read.body.data.currency, currency.toLowerCase());
    }
  });

  it("replaces only the first {transactionId} in the redirect URLs", async () => {
    const response = await service.createPayment(group, {
      successUrl: "https://shop.example.com/ok/{transactionId}?again={transactionId}",
    });
    const id = response.body.data.transactionId;
    const [row] = await service.services.db.query<{ success_url: string; cancel_url: string }>(
      "SELECT success_url, cancel_url FROM payments WHERE id = $1",
      [id],
    );
    assert.equal(row?.success_url, `https://shop.example.com/ok/${id}?again={transactionId}`);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ["amount missing", { amount: undefined }],
    ["amount zero", { amount: 0 }],
    ["amount negative", { amount: -5 }],
    ["amount too large", { amount: 100000000 }],
    ["amount fractional", { amount: 10.5 }],
    ["amount as string", { amount: "1999" }],
    ["amount null", { amount: null }],
    ["currency missing", { currency: undefined }],
    ["currency unsupported", { currency: "eur" }],
    ["currency padded", { currency: " usd" }],
    ["currency number", { currency: 840 }],
    ["successUrl missing", { successUrl: undefined }],
    ["successUrl not http", { successUrl: "ftp://example.com/x" }],
    ["successUrl too short", { successUrl: "http://a." }],
    ["successUrl too long", { successUrl: `https://example.com/${"a".repeat(1990)}` }],
    ["cancelUrl missing", { cancelUrl: undefined }],
    ["cancelUrl javascript", { cancelUrl: "javascript:alert(1)//" }],
    ["webhookUrl not http", { webhookUrl: "mailto:ops@example.com" }],
    ["customerEmail invalid", { customerEmail: "not-an-email" }],
    ["customerEmail too long", { customerEmail: `${"a".repeat(250)}@example.com` }],
    ["customerName too long", { customerName: "n".repeat(256) }],
    ["customerName null", { customerName: null }],
    ["description too long", { description: "d".repeat(1001) }],
    ["metadata array", { metadata: ["a"] }],
    ["metadata string", { metadata: "a=b" }],
    [
      "metadata 21 keys",
      { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) },
    ],
    ["metadata nested object", { metadata: { nested: { deep: true } } }],
  ];
  for (const [name, overrides] of invalid) {
    it(`answers 400 INVALID_REQUEST and creates nothing: ${name}`, async () => {
      const before = await countPayments();
      const body: Record<string, unknown> = validPayment(overrides);
      for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
      const response = await service.api(group, "POST", "/api/v1/payments/create", body);
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.body.success, false);
      assert.equal(response.body.error.code, "INVALID_REQUEST");
      assert.equal(typeof response.body.error.message, "string");
      assert.equal(await countPayments(), before);
    });
  }

  it("accepts the limits themselves", async () => {
    const response = await service.createPayment(group, {
      amount: 99999999,
      successUrl: "http://a.co",
      cancelUrl: `https://example.com/${"a".repeat(1980)}`,
      customerName: "n".repeat(255),
      description: "d".repeat(1000),
      metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const minimum = await service.createPayment(group, { amount: 1 });
    assert.equal(minimum.status, 200);
  });

  it("ignores fields it does not know", async () => {
    const response = await service.createPayment(group, { status: "succeeded", groupId: "x", foo: 1 });
    assert.equal(response.status, 200);
    const read = await service.api(group, "GET", `/api/v1/payments/${response.body.data.transactionId}`);
    assert.equal(read.body.data.status, "processing");
  });

  it("answers 502 PROCESSOR_ERROR without customerEmail and records nothing", async () => {
    const before = await countPayments();
    const body: Record<string, unknown> = validPayment();
    delete body.customerEmail;
    const response = await service.api(group, "POST", "/api/v1/payments/create", body);
    assert.equal(response.status, 502);
    assert.equal(response.body.error.code, "PROCESSOR_ERROR");
    assert.match(response.body.error.message, /customerEmail is required/);
    assert.equal(await countPayments(), before);
  });

  describe("unreachable hosts", () => {
    const blocked = [
      "http://localhost/ok",
      "http://LOCALHOST:8080/ok",
      "http://localhost./ok",
      "http://127.0.0.1/ok",
      "http://127.0.0.2/ok",
      "http://0.0.0.0/ok",
      "http://169.254.169.254/latest",
      "http://10.1.2.3/ok",
      "http://172.217.1.1/ok",
      "http://192.168.0.10/ok",
      "http://billing.internal/ok",
      "http://printer.local/ok",
      "http://[::1]/ok",
      "http://[::ffff:127.0.0.1]/ok",
      "http://2130706433/ok",
      "http://0x7f.1/ok",
      "http://0177.0.0.1/ok",
      "http://017700000001/ok",
      "http://0xa9fea9fe/ok",
      "http://exa mple.com/ok",
    ];
    for (const url of blocked) {
      it(`creates the payment but sends the customer to the fallback for ${url}`, async () => {
        const response = await service.createPayment(group, { successUrl: url, webhookUrl: url });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        const id = response.body.data.transactionId;
        const [row] = await service.services.db.query<{ webhook_url: string | null }>(
          "SELECT webhook_url FROM payments WHERE id = $1",
          [id],
        );
        assert.equal(row?.webhook_url, null, "no webhook may go to an unreachable host");
        await service.sandbox
          ?.simulationOf(response.body.data.sessionId)
          ?.attempt(response.body.data.sessionId, "succeeded");
        const token = response.body.data.paymentUrl.split("/pay/")[1];
        const back = await service.request("GET", `/return/${token}`);
        assert.equal(back.status, 303);
        assert.equal(back.headers.get("location"), "https://fallback.example.com");
      });
    }

    it("lets ALLOWED_PRIVATE_HOSTS through, port included", async () => {
      const response = await service.createPayment(group, {
        successUrl: "http://127.0.0.1:9/ok",
        webhookUrl: "http://127.0.0.1:9/hook",
      });
      const [row] = await service.services.db.query<{ webhook_url: string | null }>(
        "SELECT webhook_url FROM payments WHERE id = $1",
        [response.body.data.transactionId],
      );
      assert.equal(row?.webhook_url, "http://127.0.0.1:9/hook");
      const otherPort = await service.createPayment(group, { webhookUrl: "http://127.0.0.1:10/hook" });
      const [other] = await service.services.db.query<{
        webhook_url: string | null;
        dropped_webhook_host: string | null;
      }>("SELECT webhook_url, dropped_webhook_host FROM payments WHERE id = $1", [
        otherPort.body.data.transactionId,
      ]);
      assert.equal(other?.webhook_url, null);
      assert.equal(other?.dropped_webhook_host, "127.0.0.1:10", "the dashboard says which host was dropped");
    });
  });

  describe("Idempotency-Key", () => {
    it("returns the first result for the same key and body", async () => {
      const headers = { "idempotency-key": "order-1001" };
      const first = await service.api(group, "POST", "/api/v1/payments/create", validPayment(), headers);
      const before = await countPayments();
      const second = await service.api(group, "POST", "/api/v1/payments/create", validPayment(), headers);
      assert.equal(first.status, 200);
      assert.deepEqual(second.body, first.body);
      assert.equal(await countPayments(), before);
    });

    it("answers 409 IDEMPOTENCY_CONFLICT for the same key with another body", async () => {
      const headers = { "idempotency-key": "order-1002" };
      await service.api(group, "POST", "/api/v1/payments/create", validPayment(), headers);
      const other = await service.api(
        group,
        "POST",
        "/api/v1/payments/create",
        validPayment({ amount: 5 }),
        headers,
      );
      assert.equal(other.status, 409);
      assert.equal(other.body.error.code, "IDEMPOTENCY_CONFLICT");
    });

    it("scopes keys to the group", async () => {
      const otherGroup = await service.createGroup({ name: "Other" });
      const headers = { "idempotency-key": "shared-key" };
      const mine = await service.api(group, "POST", "/api/v1/payments/create", validPayment(), headers);
      const theirs = await service.api(
        otherGroup,
        "POST",
        "/api/v1/payments/create",
        validPayment(),
        headers,
      );
      assert.notEqual(mine.body.data.transactionId, theirs.body.data.transactionId);
    });

    it("gives each of many concurrent identical requests the same payment", async () => {
      const headers = { "idempotency-key": "burst-1" };
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          service.api(group, "POST", "/api/v1/payments/create", validPayment(), headers),
        ),
      );
      const ids = new Set(responses.filter((r) => r.status === 200).map((r) => r.body.data.transactionId));
      assert.equal(ids.size, 1);
      for (const response of responses) {
        assert.ok(response.status === 200 || response.body.error.code === "IDEMPOTENCY_IN_PROGRESS");
      }
    });
  });

  describe("SafeSites", () => {
    it("hands out the group's active SafeSites in turn", async () => {
      const rotating = await service.createGroup({
        safeSites: [
          { name: "A", url: "https://pay-a.example.com" },
          { name: "B", url: "https://pay-b.example.com/" },
          { name: "Off", url: "https://pay-off.example.com", isActive: false },
        ],
      });
      const hosts = [];
      for (let i = 0; i < 4; i++) {
        const response = await service.createPayment(rotating);
        hosts.push(new URL(response.body.data.paymentUrl).host);
      }
      assert.deepEqual(hosts, [
        "pay-a.example.com",
        "pay-b.example.com",
        "pay-a.example.com",
        "pay-b.example.com",
      ]);
    });

    it("answers 409 NO_ACTIVE_SAFESITE when none is active, creating nothing", async () => {
      const inactive = await service.createGroup({
        safeSites: [{ name: "Off", url: "https://x.example.com", isActive: false }],
      });
      const before = await countPayments();
      const response = await service.createPayment(inactive);
      assert.equal(response.status, 409);
      assert.equal(response.body.error.code, "NO_ACTIVE_SAFESITE");
      assert.equal(await countPayments(), before);
    });
  });
});

describe("processor failure during create", () => {
  let service: TestService;
  let group: TestGroup;
  let refuse = false;
  before(async () => {
    const processor = unreachableProcessor({
      createCheckout: async () => {
        if (refuse) throw new ProcessorRefusedError("amount too small");
        throw new ProcessorUnavailableError("connection refused");
      },
    });
    service = await startTestService({}, { processors: [processor] });
    group = await service.createGroup();
  });
  after(() => service.close());

  const rows = () =>
    service.services.db.query<{ status: string; completed_at: Date | null }>(
      "SELECT status, completed_at FROM payments WHERE group_id = $1",
      [group.groupId],
    );

  it("answers 502 PROCESSOR_ERROR when the outcome is unknown, keeps nothing, and remembers the attempt", async () => {
    const response = await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" });
    assert.equal(response.status, 502);
    assert.equal(response.body.error.code, "PROCESSOR_ERROR");
    assert.equal((await rows()).length, 0);
    const abandoned = await service.services.db.query<{ processor: string; outcome: string }>(
      "SELECT processor, outcome FROM abandoned_checkouts",
    );
    assert.deepEqual(abandoned, [{ processor: "stripe", outcome: "connection" }]);
    assert.equal((await service.services.db.query("SELECT * FROM webhook_events")).length, 0);
  });

  it("answers 502 PROCESSOR_ERROR to a definite refusal and keeps the record failed, with no webhook", async () => {
    refuse = true;
    const response = await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" });
    assert.equal(response.status, 502);
    assert.equal(response.body.error.code, "PROCESSOR_ERROR");
    const [row, ...others] = await rows();
    assert.equal(others.length, 0);
    assert.equal(row?.status, "failed");
    assert.ok(row?.completed_at);
    assert.equal((await service.services.db.query("SELECT * FROM webhook_events")).length, 0);
  });
});
