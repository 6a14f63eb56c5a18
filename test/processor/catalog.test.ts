// A processor is added through the catalog alone: an in-test fake, given to the service as one
// more descriptor, takes a create, an event, a refund and a reconciliation run with no other edit.
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { PROCESSOR_CATALOG } from "../../src/processor/catalog.ts";
import type { ProcessorDescriptor } from "../../src/processor/descriptor.ts";
import {
  type Checkout,
  CheckoutNotFoundError,
  InvalidEventError,
  type ProcessorAdapter,
  type ProcessorEvent,
  type ProcessorRefund,
  ProcessorRefusedError,
} from "../../src/processor/port.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const SIGNATURE_HEADER = "x-fakepay-signature";

/** What the fake processor carried out, as a real one's books would show it. */
class FakePayBooks {
  readonly checkouts = new Map<
    string,
    Checkout & { transactionId: string; amount: number; currency: string }
  >();
  readonly refunds = new Map<string, ProcessorRefund & { paymentRef: string; key: string }>();
  constructor(readonly key: string) {}

  pay(checkoutId: string): string {
    const checkout = this.checkouts.get(checkoutId);
    if (!checkout) throw new Error(`no checkout ${checkoutId}`);
    Object.assign(checkout, { status: "finished", paid: true, paymentRef: `fp_pay_${checkoutId}` });
    return checkout.paymentRef as string;
  }

  refundedOf(paymentRef: string): number {
    return [...this.refunds.values()]
      .filter((refund) => refund.paymentRef === paymentRef)
      .reduce((sum, refund) => sum + refund.amount, 0);
  }

  sign(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("hex");
  }

  adapter(): ProcessorAdapter {
    const checkoutOf = (id: string) => {
      const checkout = this.checkouts.get(id);
      if (!checkout) throw new CheckoutNotFoundError(`no checkout ${id}`);
      const { transactionId: _t, amount: _a, currency: _c, ...shown } = checkout;
      return { ...shown };
    };
    const paymentOf = (ref: string) => [...this.checkouts.values()].find((each) => each.paymentRef === ref);
    return {
      name: "fakepay",
      limits: { checkoutLifetimeSeconds: { min: 1, max: 86400 }, idempotencyKeyLifetimeMs: 86_400_000 },
      takes: (currency) => currency === "usd",
      createCheckout: async (request) => {
        const id = `fp_cs_${this.checkouts.size + 1}`;
        this.checkouts.set(id, {
          id,
          url: `https://fakepay.example/checkout/${id}`,
          status: "open",
          paid: false,
          paymentRef: null,
          transactionId: request.transactionId,
          amount: request.amount,
          currency: request.currency,
        });
        return checkoutOf(id);
      },
      lookUpCheckout: async (id) => checkoutOf(id),
      triedThrough: async (id, ref) => this.checkouts.get(id)?.paymentRef === ref,
      listCheckouts: async () => [],
      expireCheckout: async (id) => {
        const checkout = this.checkouts.get(id);
        if (checkout?.status === "open") checkout.status = "expired";
        return checkoutOf(id);
      },
      lookUpPayment: async (ref) => {
        const paid = paymentOf(ref);
        if (!paid) return null;
        const refunds = [...this.refunds.values()].filter((refund) => refund.paymentRef === ref);
        return {
          ref,
          amount: paid.amount,
          currency: paid.currency,
          amountRefunded: this.refundedOf(ref),
          refunds: refunds.map(({ id, amount, status, refundIdHint }) => ({
            id,
            amount,
            status,
            refundIdHint,
          })),
          disputes: [],
        };
      },
      transactionIdOf: async (ref) => paymentOf(ref)?.transactionId ?? null,
      refund: async (request) => {
        const again = [...this.refunds.values()].find((refund) => refund.key === request.idempotencyKey);
        if (again) return again;
        const refund = {
          id: `fp_re_${this.refunds.size + 1}`,
          amount: request.amount,
          status: "succeeded" as const,
          refundIdHint: request.refundId,
          paymentRef: request.paymentRef,
          key: request.idempotencyKey,
        };
        this.refunds.set(refund.id, refund);
        return refund;
      },
      lookUpRefund: async (id) => this.refunds.get(id) ?? null,
      // FakePay has no disputes: nothing of the catalog's path needs them.
      lookUpDispute: async () => null,
      sendDisputeEvidence: async () => {
        throw new ProcessorRefusedError("FakePay has no disputes");
      },
      acceptDispute: async () => {
        throw new ProcessorRefusedError("FakePay has no disputes");
      },
      parseEvent: (rawBody, headers): ProcessorEvent => {
        const given = Buffer.from(String(headers[SIGNATURE_HEADER] ?? ""), "hex");
        const expected = Buffer.from(this.sign(rawBody.toString("utf8")), "hex");
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          throw new InvalidEventError("bad signature");
        }
        const event = JSON.parse(rawBody.toString("utf8")) as { id: string; checkoutId: string };
        const checkout = this.checkouts.get(event.checkoutId);
        return {
          id: event.id,
          type: "checkout.paid",
          action: { kind: "paid" },
          checkoutId: event.checkoutId,
          paymentRef: checkout?.paymentRef ?? null,
          transactionIdHint: checkout?.transactionId ?? null,
          amount: checkout?.amount ?? null,
          currency: checkout?.currency ?? null,
        };
      },
    };
  }
}

describe("a third processor (an in-test fake, FakePay) added through the catalog alone", () => {
  const books = new FakePayBooks("fakepay-test-key");
  const fakePay: ProcessorDescriptor = {
    name: "fakepay",
    title: "FakePay",
    settings: [{ name: "FAKEPAY_KEY", required: true }],
    hiddenHeaders: [SIGNATURE_HEADER],
    makeAdapter: async ({ settings }) => {
      assert.equal(settings.FAKEPAY_KEY, books.key, "its settings come from the environment by its names");
      return books.adapter();
    },
  };
  let service: TestService;
  let group: TestGroup;

  before(async () => {
    service = await startTestService(
      { PROCESSOR: "fakepay", FAKEPAY_KEY: books.key },
      { catalog: [...PROCESSOR_CATALOG, fakePay] },
    );
    group = await service.createGroup();
  });
  after(() => service?.close());

  it("refuses to start without its required setting, naming it", async () => {
    await assert.rejects(
      startTestService({ PROCESSOR: "fakepay" }, { catalog: [...PROCESSOR_CATALOG, fakePay] }),
      /PROCESSOR=fakepay needs FAKEPAY_KEY/,
    );
  });

  it("takes a create, an event, a refund and a reconciliation run", async () => {
    const created = await service.createPayment(group, { amount: 3000 });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { transactionId, sessionId } = created.body.data;
    assert.equal(
      books.checkouts.get(sessionId)?.transactionId,
      transactionId,
      "the checkout opened at FakePay",
    );
    const read = async () => (await service.api(group, "GET", `/api/v1/payments/${transactionId}`)).body.data;
    assert.equal((await read()).processor, "fakepay");

    // The customer pays; FakePay tells us with a signed event, and a forged one changes nothing.
    books.pay(sessionId);
    const body = JSON.stringify({ id: "fp_evt_1", checkoutId: sessionId });
    const forged = await service.request("POST", "/processor/webhooks/fakepay", {
      rawBody: body,
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: "00".repeat(32) },
    });
    assert.equal(forged.status, 400);
    assert.equal((await read()).status, "processing");
    const event = await service.request("POST", "/processor/webhooks/fakepay", {
      rawBody: body,
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: books.sign(body) },
    });
    assert.equal(event.status, 200, JSON.stringify(event.body));
    assert.equal((await read()).status, "succeeded");

    // A refund, asked twice with one key, is carried out once at FakePay.
    const ask = () =>
      service.api(
        group,
        "POST",
        `/api/v1/payments/${transactionId}/refunds`,
        { amount: 1000 },
        { "idempotency-key": "r1" },
      );
    const refund = await ask();
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.data.status, "succeeded");
    assert.equal((await ask()).body.data.refundId, refund.body.data.refundId);
    const paymentRef = books.checkouts.get(sessionId)?.paymentRef as string;
    assert.equal(books.refundedOf(paymentRef), 1000, "FakePay carried out the one refund");

    // A refund made at FakePay directly, whose event was lost: a reconciliation run finds it.
    books.refunds.set("fp_re_direct", {
      id: "fp_re_direct",
      amount: 500,
      status: "succeeded",
      refundIdHint: null,
      paymentRef,
      key: "made-at-fakepay",
    });
    const run = await service.admin("POST", "/admin/v1/reconciliation/runs", {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    assert.equal(run.status, 202, JSON.stringify(run.body));
    const finished = await waitFor(async () => {
      const answer = await service.admin("GET", `/admin/v1/reconciliation/runs/${run.body.data.runId}`);
      return answer.body.data.status === "finished" ? answer.body.data : undefined;
    });
    assert.ok(finished.repaired >= 1, JSON.stringify(finished));
    const payment = await read();
    assert.equal(payment.status, "partially_refunded");
    assert.equal(payment.amountRefunded, 1500);
    assert.equal(books.refundedOf(paymentRef), 1500, "no refund was made by the run itself");
  });
});
