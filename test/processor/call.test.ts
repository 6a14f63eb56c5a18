// One way to ask a processor: a deadline that stops the call, and one reading of its outcome.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { callProcessor } from "../../src/processor/call.ts";
import {
  CheckoutNotFoundError,
  ProcessorRefusedError,
  ProcessorUnavailableError,
} from "../../src/processor/port.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("a processor call's outcome", () => {
  it("is ok, refused (missing or not) or unknown with why", async () => {
    assert.deepEqual(await callProcessor(async () => 7, { deadlineMs: 1000 }), { kind: "ok", value: 7 });
    const refused = await callProcessor(
      async () => {
        throw new ProcessorRefusedError("no");
      },
      { deadlineMs: 1000 },
    );
    assert.equal(refused.kind === "refused" && refused.missing, false);
    const missing = await callProcessor(
      async () => {
        throw new CheckoutNotFoundError("gone");
      },
      { deadlineMs: 1000 },
    );
    assert.equal(missing.kind === "refused" && missing.missing, true);
    const unknown = await callProcessor(
      async () => {
        throw new ProcessorUnavailableError("502", { outcome: "server_error" });
      },
      { deadlineMs: 1000 },
    );
    assert.equal(unknown.kind === "unknown" && unknown.reason, "server_error");
  });

  it("is unknown (timeout) at its deadline, and the call's signal is aborted then", async () => {
    let given: AbortSignal | undefined;
    const started = performance.now();
    const outcome = await callProcessor(
      (signal) => {
        given = signal;
        return new Promise<never>(() => {});
      },
      { deadlineMs: 50 },
    );
    assert.equal(outcome.kind === "unknown" && outcome.reason, "timeout");
    assert.ok(performance.now() - started < 1000);
    assert.equal(given?.aborted, true);
  });

  it("stops when the caller's own signal aborts", async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error("shutting down")), 20);
    const outcome = await callProcessor(
      (signal) =>
        new Promise<never>((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      {
        deadlineMs: 60_000,
        signal: caller.signal,
      },
    );
    assert.equal(outcome.kind, "unknown");
  });
});

describe("a deadline stops the SDK's call, retries included", () => {
  let service: TestService;
  let stripeGroup: TestGroup;
  let squareGroup: TestGroup;
  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "1800" });
    stripeGroup = await service.createGroup({ name: "Stripe shop" });
    squareGroup = await service.createGroup({ name: "Square shop" });
    const routed = await service.admin("PUT", `/admin/v1/groups/${squareGroup.groupId}/routing`, {
      routes: [{ processors: ["square"] }],
    });
    assert.equal(routed.status, 200);
  });
  after(async () => {
    await service.sandboxDelete("/sandbox/faults");
    await service.close();
  });

  const paid = async (group: TestGroup) => {
    const created = (await service.createPayment(group, { amount: 1500 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    return waitFor(async () => {
      const payment = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body
        .data;
      return payment.status === "succeeded" ? payment : undefined;
    });
  };

  for (const [processor, group] of [
    ["stripe", () => stripeGroup],
    ["square", () => squareGroup],
  ] as const) {
    it(`${processor}: a refund held back is given up at the signal, and asked once`, async () => {
      const payment = await paid(group());
      const refundsAsked = () =>
        (service.sandbox?.state.requests ?? []).filter(
          (request) =>
            request.processor === processor && request.method === "POST" && request.path.includes("refunds"),
        ).length;
      const before = refundsAsked();
      // Every try is held for a minute: without the signal the SDK would wait, then retry.
      await service.sandboxPost("/sandbox/faults", { processor, refunds: { mode: "delay", count: 3 } });
      const adapter = service.services.processors.of(processor);
      const caller = new AbortController();
      const started = performance.now();
      const call = adapter.refund(
        {
          paymentRef: payment.processorPaymentIntentId,
          amount: 500,
          reason: null,
          refundId: `call-test-${processor}`,
          transactionId: payment.transactionId,
          idempotencyKey: `call-test-${processor}`,
        },
        caller.signal,
      );
      setTimeout(() => caller.abort(new Error("deadline")), 200);
      await assert.rejects(call);
      assert.ok(performance.now() - started < 10_000, "the SDK let go at the signal, not at its own timeout");
      // The SDK's retries after the abort send nothing.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(refundsAsked() - before, 1);
      await service.sandboxDelete("/sandbox/faults");
    });
  }
});
