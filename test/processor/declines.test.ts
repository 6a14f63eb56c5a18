// A decline means the same at every processor: the same histories, driven through Stripe and
// Square, give the same statuses and the same webhooks.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

type Outcome = "succeeded" | "failed";

const HISTORIES: Outcome[][] = [
  ["failed"],
  ["failed", "succeeded"],
  ["failed", "failed", "succeeded"],
  ["succeeded"],
];

describe("declines at either processor", () => {
  let service: TestService;
  const groups = {} as Record<"stripe" | "square", TestGroup>;
  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "60" });
    groups.stripe = await service.createGroup({ name: "Stripe shop" });
    groups.square = await service.createGroup({ name: "Square shop" });
    await service.admin("PUT", `/admin/v1/groups/${groups.square.groupId}/routing`, {
      routes: [{ processors: ["square"] }],
    });
  });
  after(() => service.close());

  /** The payment's statuses and webhooks after each try of one history. */
  const drive = async (processor: "stripe" | "square", history: Outcome[]) => {
    const group = groups[processor];
    const created = (await service.createPayment(group)).body.data;
    const seen: string[] = [];
    for (const [index, outcome] of history.entries()) {
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome });
      const expected = outcome === "succeeded" ? "succeeded" : "failed";
      const payment = await waitFor(
        async () => {
          const read = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body
            .data;
          const events = await service.services.db.query(
            "SELECT 1 FROM processor_events WHERE payment_id = $1",
            [created.transactionId],
          );
          // Each try's events are in before the next: a decline is confirmed, not only sent.
          return read.status === expected && events.length > 0 ? read : undefined;
        },
        10_000,
        `${processor}: try ${index + 1} ${outcome}`,
      );
      assert.equal(payment.processor, processor);
      seen.push(payment.status);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const webhooks = await service.services.db.query<{ event: string; status: string }>(
      "SELECT event, status FROM webhook_events WHERE payment_id = $1 ORDER BY created_at",
      [created.transactionId],
    );
    return { statuses: seen, webhooks: webhooks.map((row) => `${row.event}:${row.status}`) };
  };

  for (const history of HISTORIES) {
    it(`${history.join(" → ")}: the same statuses and webhooks through Stripe and Square`, async () => {
      const stripe = await drive("stripe", history);
      const square = await drive("square", history);
      assert.deepEqual(square, stripe);
      assert.equal(stripe.statuses.at(-1), history.at(-1));
      if (history[0] === "failed") assert.equal(stripe.webhooks[0], "payment.failed:failed");
    });
  }
});
