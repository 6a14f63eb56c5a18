import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type ProcessorEvent, ProcessorUnavailableError } from "../../src/processor/port.ts";
import { unreachableProcessor } from "../helpers/processor.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/** A processor whose events are whatever the test says, and whose API is up or down on demand. */
function scriptedProcessor(event: ProcessorEvent) {
  const state = { up: false, lookups: 0 };
  const processor = unreachableProcessor({
    transactionIdOf: async () => {
      state.lookups++;
      if (!state.up) throw new ProcessorUnavailableError("connection refused");
      return null;
    },
    parseEvent: () => event,
  });
  return { processor, state };
}

describe("processor intake when the processor cannot be asked", () => {
  const dispute: ProcessorEvent = {
    id: "evt_dispute_unknown_intent",
    type: "charge.dispute.created",
    action: { kind: "disputed" },
    checkoutId: null,
    paymentRef: "pi_never_seen_here",
    transactionIdHint: null,
    amount: null,
    currency: "usd",
  };
  const scripted = scriptedProcessor(dispute);
  let service: TestService;
  before(async () => {
    service = await startTestService({}, { processors: [scripted.processor] });
  });
  after(() => service.close());

  const post = () =>
    service.request("POST", "/processor/webhooks/stripe", {
      rawBody: "{}",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=checked-by-the-adapter" },
    });
  const recorded = async () =>
    (await service.services.db.query("SELECT 1 FROM processor_events WHERE id = $1", [dispute.id])).length;

  it("answers 503 and records nothing, so the processor's retry is applied later", async () => {
    const refused = await post();
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, "SERVICE_UNAVAILABLE");
    assert.equal(await recorded(), 0);

    scripted.state.up = true;
    const accepted = await post();
    assert.equal(accepted.status, 200);
    assert.deepEqual(accepted.body, { received: true });
    assert.equal(await recorded(), 1);
    assert.equal(scripted.state.lookups, 2);
  });
});
