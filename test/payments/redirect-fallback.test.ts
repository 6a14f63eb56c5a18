// A payment whose successUrl or cancelUrl the unreachable-host rule refuses says so: on Get
// Payment, in the log, and on its dashboard page.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("a redirect replaced by the fallback", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  it("sets redirectFallback when either URL is refused, and shows a notice on the payment's page", async () => {
    const cases = [
      [{}, false],
      [{ successUrl: "http://10.0.0.5/thanks" }, true],
      [{ cancelUrl: "http://localhost:4242/cart" }, true],
    ] as const;
    const ids: string[] = [];
    for (const [urls, expected] of cases) {
      const created = await service.createPayment(group, urls);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const read = (await service.api(group, "GET", `/api/v1/payments/${created.body.data.transactionId}`))
        .body.data;
      assert.equal(read.redirectFallback, expected, JSON.stringify(urls));
      ids.push(created.body.data.transactionId);
    }
    const listed = (await service.api(group, "GET", "/api/v1/payments?limit=3")).body.data.payments;
    assert.ok(
      listed.every((payment: { redirectFallback: unknown }) => typeof payment.redirectFallback === "boolean"),
    );
    const owner = await signedInUser(service, group, "owner@shop.example", "owner");
    assert.match((await owner.get(`/dashboard/payments/${ids[1]}`)).text, /id="redirect-fallback"/);
    assert.doesNotMatch((await owner.get(`/dashboard/payments/${ids[0]}`)).text, /id="redirect-fallback"/);
  });
});
