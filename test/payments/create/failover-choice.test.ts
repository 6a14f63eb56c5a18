// What failover does with each kind of answer, with processors that answer as told (docs/api.md,
// "Processor routing and failover").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AbandonedCheckouts } from "../../../src/payments/create/abandoned.ts";
import { ProcessorBreakers } from "../../../src/payments/create/breakers.ts";
import { Failover } from "../../../src/payments/create/failover.ts";
import {
  type CheckoutRequest,
  type ProcessorAdapter,
  ProcessorRefusedError,
} from "../../../src/processor/port.ts";
import { openCheckout, unreachableProcessor } from "../../helpers/processor.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

describe("a definite refusal", () => {
  let service: TestService;
  let group: TestGroup;
  let squareAsked = 0;
  before(async () => {
    const refusing = unreachableProcessor({
      name: "stripe",
      createCheckout: async () => {
        throw new ProcessorRefusedError("card payments are not enabled for this account");
      },
    });
    const counting = unreachableProcessor({
      name: "square",
      createCheckout: async (request) => {
        squareAsked++;
        return openCheckout(request);
      },
    });
    service = await startTestService({}, { processors: [refusing, counting] });
    group = await service.createGroup();
  });
  after(() => service.close());

  it("is not failed over: 502 PROCESSOR_ERROR, and the next processor is never asked", async () => {
    const answer = await service.createPayment(group);
    assert.equal(answer.status, 502);
    assert.equal(answer.body.error.code, "PROCESSOR_ERROR");
    assert.equal(squareAsked, 0);
    const abandoned = await service.services.db.query("SELECT 1 FROM abandoned_checkouts");
    assert.equal(abandoned.length, 0, "a refusal opened nothing: nothing to close");
  });
});

describe("the create's deadline", () => {
  const silent = (name: ProcessorAdapter["name"]) =>
    unreachableProcessor({ name, createCheckout: () => new Promise(() => {}) });
  const request: CheckoutRequest = {
    transactionId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
    amount: 100,
    currency: "usd",
    customerEmail: "a@example.com",
    lineItemName: "Payment",
    returnUrl: "https://pay.example.com/return/x",
    expiresAt: new Date(Date.now() + 60_000),
    idempotencyKey: "checkout-session-deadline",
  };
  const remembered: string[] = [];
  const abandoned = {
    remember: async (_groupId: string, processor: string) => {
      remembered.push(processor);
    },
  } as unknown as AbandonedCheckouts;
  const quiet = { warn: () => {} } as never;

  it("gives the first processor its own timeout, the last what is left, and answers within the deadline", async () => {
    const breakers = new ProcessorBreakers({ failures: 5, openMs: 30_000 });
    const failover = new Failover(
      breakers,
      abandoned,
      100,
      { passedOver: () => {}, answered: () => {} },
      quiet,
      400,
    );
    const started = Date.now();
    await assert.rejects(
      failover.open("unused", [silent("stripe"), silent("square")], request),
      /could not create/,
    );
    const took = Date.now() - started;
    assert.ok(took >= 380 && took < 1000, `answered after ${took} ms`);
    assert.deepEqual(remembered, ["stripe", "square"], "both attempts are remembered for closing");
  });

  it("asks no processor once the deadline has passed: nothing opened that nobody would hear of", async () => {
    remembered.length = 0;
    let squareAsked = 0;
    const counting = unreachableProcessor({
      name: "square",
      createCheckout: async (checkout) => {
        squareAsked++;
        return openCheckout(checkout);
      },
    });
    const reasons: string[] = [];
    // The first processor loses its connection only once the create's deadline has passed.
    const lateLoss = unreachableProcessor({
      name: "stripe",
      createCheckout: () => {
        const until = Date.now() + 120;
        while (Date.now() < until) {}
        return Promise.reject(new Error("socket hang up"));
      },
    });
    const breakers = new ProcessorBreakers({ failures: 5, openMs: 30_000 });
    const failover = new Failover(
      breakers,
      abandoned,
      1000,
      { passedOver: (_f, _t, why) => reasons.push(why), answered: () => {} },
      quiet,
      100,
    );
    await assert.rejects(failover.open("unused", [lateLoss, counting], request), /could not create/);
    assert.equal(squareAsked, 0);
    assert.deepEqual(remembered, ["stripe"], "only the call that was made is remembered");
    assert.deepEqual(reasons, ["connection", "timeout"]);
  });
});
