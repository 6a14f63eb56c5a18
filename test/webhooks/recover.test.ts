import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Receiver } from "../helpers/receiver.ts";
import { startWithReceiver, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("recovering webhooks that were dropped", () => {
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;
  let up = false;
  let stop: () => Promise<void>;
  before(async () => {
    ({ receiver, service, group, stop } = await startWithReceiver({ "/flaky": () => (up ? 200 : 503) }));
  });
  after(() => stop());

  /** A cancelled payment whose payment.failed delivery was dropped while the receiver was down. */
  const dropped = async () => {
    const id = (await service.createPayment(group, { webhookUrl: `${receiver.url}/flaky` })).body.data
      .transactionId;
    await service.api(group, "DELETE", `/api/v1/payments/${id}`);
    await waitFor(async () => {
      const events = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
      return events[0]?.deliveries[0]?.state === "failed" ? true : undefined;
    });
    return id;
  };
  const deliveredIds = (id: string) =>
    receiver
      .at("/flaky")
      .filter((request) => request.headers["x-service-transaction"] === id && request.headers["webhook-id"])
      .map((request) => request.headers["webhook-id"]);

  it("merchant: resends every event of the window whose deliveries all failed, with its webhook-id", async () => {
    up = false;
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await dropped();
    const second = await dropped();
    const eventId = (await service.api(group, "GET", `/api/v1/payments/${first}/events`)).body.data[0]
      .eventId;
    up = true;
    const recovered = await service.api(group, "POST", "/api/v1/events/recover", { since });
    assert.equal(recovered.status, 202);
    assert.deepEqual(recovered.body.data, { queued: 2 });
    await waitFor(async () => {
      const events = (await service.api(group, "GET", `/api/v1/payments/${second}/events`)).body.data;
      return events[0].deliveries.some((delivery: { state: string }) => delivery.state === "succeeded")
        ? true
        : undefined;
    });
    const ids = new Set(deliveredIds(first));
    assert.deepEqual([...ids], [eventId], "the same webhook-id on the dropped attempts and the recovery");
    // Delivered now: a second recovery over the same window has nothing to do.
    await waitFor(async () => {
      const again = await service.api(group, "POST", "/api/v1/events/recover", { since });
      return again.body.data.queued === 0 ? true : undefined;
    });
  });

  it("refuses bad windows, and other groups' events are not theirs to recover", async () => {
    for (const body of [
      {},
      { since: "yesterday" },
      { since: "0000-01-01T00:00:00Z" },
      { since: "2030-01-02T00:00:00Z", until: "2030-01-01T00:00:00Z" },
    ]) {
      const bad = await service.api(group, "POST", "/api/v1/events/recover", body);
      assert.deepEqual([bad.status, bad.body.error.code], [400, "INVALID_REQUEST"], JSON.stringify(body));
    }
    up = false;
    const since = new Date(Date.now() - 1000).toISOString();
    await dropped();
    const other = await service.createGroup({ name: "Other" });
    const theirs = await service.api(other, "POST", "/api/v1/events/recover", { since });
    assert.deepEqual(theirs.body.data, { queued: 0 });
    const operator = await service.admin("POST", "/admin/v1/deliveries/recover", {
      since,
      groupId: group.groupId,
    });
    assert.equal(operator.status, 202);
    assert.deepEqual(operator.body.data, { queued: 1 });
  });
});
