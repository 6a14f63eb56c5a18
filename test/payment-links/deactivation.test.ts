// Once a payment link's deactivation has answered, no payment is created through it, also by
// requests that were already under way at the processor.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckoutRequest } from "../../src/processor/port.ts";
import { openCheckout, unreachableProcessor } from "../helpers/processor.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("a payment link deactivated while payments are under way", () => {
  let service: TestService;
  let group: TestGroup;
  let release: () => void = () => {};
  let held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const asked: CheckoutRequest[] = [];
  const expired: string[] = [];
  before(async () => {
    // A processor that holds every checkout open until the test lets it answer.
    const slow = unreachableProcessor({
      createCheckout: async (request) => {
        asked.push(request);
        await held;
        return openCheckout(request);
      },
      expireCheckout: async (checkoutId) => {
        expired.push(checkoutId);
        return { id: checkoutId, url: "", status: "expired", paid: false, paymentRef: null };
      },
    });
    service = await startTestService({ RATE_LIMIT_MAX: "100" }, { processors: [slow] });
    group = await service.createGroup({ name: "Race shop" });
  });
  after(() => service.close());

  it("refuses every payment that had not been written when the deactivation answered", async () => {
    const link = (
      await service.api(group, "POST", "/api/v1/payment-links", {
        name: "Mug",
        currency: "usd",
        amount: 1800,
      })
    ).body.data;
    const path = new URL(link.url).pathname;
    const posts = Array.from({ length: 8 }, (_, index) =>
      service.request("POST", path, {
        rawBody: new URLSearchParams({ email: `buyer${index}@example.com` }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    await waitFor(async () => (asked.length === 8 ? true : undefined));
    const off = await service.api(group, "PATCH", `/api/v1/payment-links/${link.linkId}`, { active: false });
    assert.equal(off.status, 200);
    release();
    const answers = await Promise.all(posts);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(8).fill(410),
      "each customer sees the link is no longer active",
    );
    const made = await service.api(group, "GET", `/api/v1/payments?paymentLinkId=${link.linkId}`);
    assert.equal(made.body.data.payments.length, 0);
    await waitFor(async () => (expired.length === 8 ? true : undefined));
    held = Promise.resolve();
  });
});
