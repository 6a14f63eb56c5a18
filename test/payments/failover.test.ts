// Failover at creation. Each creation fault at each processor makes the create go to
// the other, counted at the sandbox: which processor issued the link, how many checkouts each
// holds, and that none is left open once the abandoned attempts are closed.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { ProcessorName } from "../../src/processor/port.ts";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const OTHER: Record<"stripe" | "square", "stripe" | "square"> = { stripe: "square", square: "stripe" };

/** The checkouts each processor holds for one transaction, with their state at the processor. */
function checkoutsOf(service: TestService, transactionId: string) {
  const sandbox = service.sandbox;
  if (!sandbox) throw new Error("the sandbox runs in these tests");
  const stripe = [...sandbox.state.sessions.values()]
    .filter((session) => session.metadata.transactionId === transactionId)
    .map((session) => ({ id: session.id, open: sandbox.state.session(session.id)?.status === "open" }));
  const square = [...sandbox.state.squareOrders.values()]
    .filter((order) => order.reference_id === transactionId)
    .map((order) => {
      const link = [...sandbox.state.squareLinks.values()].find((each) => each.order_id === order.id);
      // A Square checkout is open while its link exists and its order is open.
      return { id: link?.id ?? order.id, open: Boolean(link) && order.state === "OPEN" };
    });
  return { stripe, square };
}

describe("failover at creation, on the sandbox's faults", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({
      PROCESSOR_CREATE_TIMEOUT_MS: "5000",
      ABANDONED_CHECKOUT_SWEEP_MS: "50",
      PROCESSOR_BREAKER_FAILURES: "1000",
    });
    group = await service.createGroup();
  });
  after(() => service.close());
  afterEach(async () => {
    await service.sandboxDelete("/sandbox/faults");
  });

  const route = (processors: ProcessorName[]) =>
    service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, { routes: [{ processors }] });
  const processorOf = async (transactionId: string) =>
    (await service.api(group, "GET", `/api/v1/payments/${transactionId}`)).body.data.processor;
  const failovers = async () => (await service.request("GET", "/metrics")).body as string;

  // The SDKs retry on their own (Stripe twice, Square twice on 5xx): enough faults for every try.
  const cases: { mode: string; count: number; reason: string; opensAtFirst: boolean }[] = [
    { mode: "error_500", count: 3, reason: "server_error", opensAtFirst: false },
    { mode: "drop_response", count: 3, reason: "connection", opensAtFirst: true },
    { mode: "delay", count: 1, reason: "timeout", opensAtFirst: true },
    { mode: "outage", count: 1, reason: "server_error", opensAtFirst: false },
  ];
  for (const first of ["stripe", "square"] as const) {
    for (const fault of cases) {
      it(`${fault.mode} at ${first}: the link comes from ${OTHER[first]}, and no checkout stays open at ${first}`, async () => {
        assert.equal((await route([first, OTHER[first]])).status, 200);
        const set = await service.sandboxPost("/sandbox/faults", {
          processor: first,
          checkouts: { mode: fault.mode, count: fault.count },
        });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const created = await service.createPayment(group);
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const id = created.body.data.transactionId;
        assert.equal(await processorOf(id), OTHER[first]);
        const held = checkoutsOf(service, id);
        assert.deepEqual(
          held[OTHER[first]].map((each) => [each.id, each.open]),
          [[created.body.data.sessionId, true]],
          "the other processor holds the one open checkout the customer gets",
        );
        // One key for every ask, so at most one checkout at the first: the one the fault let it open,
        // or (after a refusal that opened none) the one the abandoned attempt's closing opens and closes.
        assert.ok(held[first].length <= 1, "at most one checkout at the first processor");
        if (fault.opensAtFirst) assert.equal(held[first].length, 1, "the fault let the first open one");
        assert.match(
          await failovers(),
          new RegExp(
            `checkout_processor_failovers_total\\{from="${first}",to="${OTHER[first]}",reason="${fault.reason}"\\} [1-9]`,
          ),
        );
        // The abandoned attempt is asked about again and closed: nothing stays open at the first.
        await service.sandboxDelete("/sandbox/faults");
        await waitFor(
          async () => {
            const [row] = await service.services.db.query<{ resolution: string | null }>(
              "SELECT resolution FROM abandoned_checkouts WHERE transaction_id = $1",
              [id],
            );
            return row?.resolution ?? undefined;
          },
          10000,
          "abandoned attempt closed",
        );
        assert.deepEqual(
          checkoutsOf(service, id)[first].filter((each) => each.open),
          [],
          `no checkout left open at ${first}`,
        );
        // The payment keeps its one open checkout at the other processor.
        assert.deepEqual(
          checkoutsOf(service, id)[OTHER[first]].map((each) => each.open),
          [true],
        );
        const [payment] = await service.services.db.query<{ processor_failovers: unknown }>(
          "SELECT processor_failovers FROM payments WHERE id = $1",
          [id],
        );
        assert.deepEqual(payment?.processor_failovers, [{ processor: first, reason: fault.reason }]);
      });
    }
  }

  it("the dashboard's payment page names the processor, and which was tried first and why", async () => {
    await route(["stripe", "square"]);
    await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
    const created = await service.createPayment(group);
    const viewer = await signedInUser(service, group, `failover-${Date.now()}@example.com`, "viewer");
    const page = (await viewer.get(`/dashboard/payments/${created.body.data.transactionId}`)).text;
    assert.match(
      page,
      /<dd id="processor">square <span class="muted" id="failover">tried after stripe \(server error\)<\/span>/,
    );
  });

  it("an SDK retry that succeeds is a definite answer: no failover", async () => {
    await route(["stripe", "square"]);
    await service.sandboxPost("/sandbox/faults", {
      processor: "stripe",
      checkouts: { mode: "error_500", count: 1 },
    });
    const created = await service.createPayment(group);
    assert.equal(created.status, 200);
    assert.equal(await processorOf(created.body.data.transactionId), "stripe");
  });

  it("when every processor fails: 502, nothing kept, and a retry with the same key starts again", async () => {
    await route(["stripe", "square"]);
    for (const processor of ["stripe", "square"]) {
      await service.sandboxPost("/sandbox/faults", { processor, checkouts: { mode: "outage" } });
    }
    const key = { "idempotency-key": `all-down-${Date.now()}` };
    const before = await service.services.db.query("SELECT id FROM payments");
    const refused = await service.createPayment(group, {}, key);
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, "PROCESSOR_ERROR");
    assert.equal((await service.services.db.query("SELECT id FROM payments")).length, before.length);
    await service.sandboxDelete("/sandbox/faults");
    const retried = await service.createPayment(group, {}, key);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(await processorOf(retried.body.data.transactionId), "stripe");
  });

  it("an idempotent replay answers the first result, with its processor, and asks no processor again", async () => {
    await route(["stripe", "square"]);
    // An outage, not a counted fault: abandoned attempts being closed meanwhile would use some up.
    await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
    const key = { "idempotency-key": `replay-${Date.now()}` };
    const first = await service.createPayment(group, {}, key);
    assert.equal(first.status, 200);
    await service.sandboxDelete("/sandbox/faults");
    // The abandoned Stripe attempt is closed first: its closing asks Stripe, the replay must not.
    await waitFor(async () => {
      const [row] = await service.services.db.query<{ closed_at: Date | null }>(
        "SELECT closed_at FROM abandoned_checkouts WHERE transaction_id = $1",
        [first.body.data.transactionId],
      );
      return row?.closed_at ?? undefined;
    });
    const asked = service.sandbox?.state.requests.length ?? 0;
    const replayed = await service.createPayment(group, {}, key);
    assert.deepEqual(replayed.body, first.body);
    assert.equal(await processorOf(first.body.data.transactionId), "square");
    // Only this payment's calls count: the sweep may be closing other tests' abandoned attempts meanwhile.
    const aboutIt = (service.sandbox?.state.requests ?? [])
      .slice(asked)
      .filter((request) =>
        [first.body.data.transactionId, first.body.data.sessionId].some((id) =>
          JSON.stringify(request).includes(id),
        ),
      );
    assert.deepEqual(aboutIt, [], "no processor was asked");
  });

  it("a payment in a currency Square's location does not take goes to Stripe whatever the route", async () => {
    await route(["square", "stripe"]);
    const created = await service.createPayment(group, { currency: "cad" });
    assert.equal(created.status, 200);
    assert.equal(await processorOf(created.body.data.transactionId), "stripe");
    await route(["square"]);
    const refused = await service.createPayment(group, { currency: "cad" });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "NO_ELIGIBLE_PROCESSOR");
  });
});

describe("the processor breaker", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService({
      PROCESSOR_BREAKER_FAILURES: "2",
      PROCESSOR_BREAKER_SECONDS: "0.5",
      ABANDONED_CHECKOUT_SWEEP_MS: "50000",
    });
    group = await service.createGroup();
  });
  after(() => service.close());

  const health = async () => (await service.request("GET", "/health")).body;
  const stripeCreates = () =>
    service.sandbox?.state.requests.filter(
      (request) => request.method === "POST" && request.path === "/v1/checkout/sessions",
    ).length ?? 0;
  const processorOf = async (transactionId: string) =>
    (await service.api(group, "GET", `/api/v1/payments/${transactionId}`)).body.data.processor;

  it("opens after unknown outcomes in a row, skips the processor while open, and closes after a trial", async () => {
    assert.deepEqual((await health()).checks.processors, {
      stripe: { status: "ok" },
      square: { status: "ok" },
    });
    await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
    for (let i = 0; i < 2; i++) {
      const created = await service.createPayment(group);
      assert.equal(await processorOf(created.body.data.transactionId), "square");
    }
    const opened = await health();
    assert.equal(opened.status, "ok", "an open breaker never makes /health unhealthy");
    assert.equal(opened.checks.processors.stripe.status, "skipped");
    const asked = stripeCreates();
    const skipped = await service.createPayment(group);
    assert.equal(await processorOf(skipped.body.data.transactionId), "square");
    assert.equal(stripeCreates(), asked, "Stripe was not asked while its breaker was open");
    assert.match(
      (await service.request("GET", "/metrics")).body,
      /checkout_processor_failovers_total\{from="stripe",to="square",reason="breaker_open"\} 1/,
    );
    await service.sandboxDelete("/sandbox/faults");
    await waitFor(async () => ((await health()).checks.processors.stripe.status === "ok" ? true : undefined));
    const trial = await service.createPayment(group);
    assert.equal(await processorOf(trial.body.data.transactionId), "stripe", "one create tries it again");
    assert.equal((await health()).checks.processors.stripe.status, "ok");
  });

  it("when every processor of the route is skipped by its breaker, the create answers 502", async () => {
    await service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, {
      routes: [{ processors: ["stripe"] }],
    });
    await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
    for (let i = 0; i < 2; i++) assert.equal((await service.createPayment(group)).status, 502);
    const asked = stripeCreates();
    const skipped = await service.createPayment(group);
    assert.equal(skipped.status, 502);
    assert.equal(skipped.body.error.code, "PROCESSOR_ERROR");
    assert.equal(stripeCreates(), asked);
    await service.sandboxDelete("/sandbox/faults");
  });
});
