// The disputes inbox: open disputes by deadline with those due within 72 hours marked; evidence
// and acceptance asked again before they are sent; viewers read and are refused.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openDispute } from "../../helpers/disputes.ts";
import { cheapPasswordHashes, type PageClient, signedInUser } from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

describe("disputes on the dashboard", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let developer: PageClient;
  let viewer: PageClient;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Dispute shop" });
    developer = await signedInUser(service, group, "dev@shop.example", "developer");
    viewer = await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(() => service.close());

  const disputed = (dueInHours: number) =>
    openDispute(service, group, { dueInHours, payment: { customerEmail: "ann@buyer.example" } });

  it("lists open disputes soonest first, marks those due within 72 hours, and shows each with its payment", async () => {
    const later = await disputed(24 * 6);
    const soon = await disputed(30);
    const inbox = await viewer.get("/dashboard/disputes");
    assert.equal(inbox.status, 200);
    const soonAt = inbox.text.indexOf(`/dashboard/disputes/${soon.dispute.disputeId}`);
    const laterAt = inbox.text.indexOf(`/dashboard/disputes/${later.dispute.disputeId}`);
    assert.ok(soonAt > 0 && laterAt > soonAt, "soonest deadline first");
    assert.equal(inbox.text.match(/Due within 72 hours/g)?.length, 1);

    const detail = await viewer.get(`/dashboard/disputes/${soon.dispute.disputeId}`);
    assert.match(detail.text, /ann@buyer\.example/);
    assert.match(detail.text, new RegExp(`/dashboard/payments/${soon.transactionId}`));
    assert.match(detail.text, /id="dispute-history"/);
    assert.doesNotMatch(detail.text, /id="evidence-form"|id="accept-form"/, "a viewer gets no forms");
    const payment = await viewer.get(`/dashboard/payments/${soon.transactionId}`);
    assert.match(payment.text, new RegExp(`id="payment-disputes"[\\s\\S]*${soon.dispute.disputeId}`));

    const refused = await viewer.post(`/dashboard/disputes/${soon.dispute.disputeId}/accept`, {
      confirm: "true",
    });
    assert.equal(refused.status, 403);
    const still = (await service.api(group, "GET", `/api/v1/disputes/${soon.dispute.disputeId}`)).body.data;
    assert.equal(still.status, "needs_response");
  });

  it("submits evidence and accepts only after asking again", async () => {
    const first = await disputed(48);
    const path = `/dashboard/disputes/${first.dispute.disputeId}`;
    assert.match((await developer.get(path)).text, /id="evidence-form"/);
    const saved = await developer.post(`${path}/evidence`, { productDescription: "A <b>blue</b> mug" });
    assert.equal(saved.status, 303);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/disputes/${first.dispute.disputeId}`)).body.data.status,
      "needs_response",
    );

    const ask = await developer.post(`${path}/evidence`, {
      shippingTracking: "1Z999AA10123456784",
      submit: "true",
    });
    assert.equal(ask.status, 200);
    assert.match(ask.text, /id="submit-confirm"/);
    assert.match(ask.text, /1Z999AA10123456784/);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/disputes/${first.dispute.disputeId}`)).body.data.status,
      "needs_response",
    );
    const sent = await developer.post(`${path}/evidence`, {
      shippingTracking: "1Z999AA10123456784",
      submit: "true",
      confirm: "true",
    });
    assert.equal(sent.status, 303);
    assert.match((await developer.get(path)).text, /Evidence submitted/);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/disputes/${first.dispute.disputeId}`)).body.data.status,
      "under_review",
    );

    const second = await disputed(48);
    const other = `/dashboard/disputes/${second.dispute.disputeId}`;
    const confirm = await developer.post(`${other}/accept`, {});
    assert.match(confirm.text, /id="accept-confirm"/);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/disputes/${second.dispute.disputeId}`)).body.data.status,
      "needs_response",
    );
    assert.equal((await developer.post(`${other}/accept`, { confirm: "true" })).status, 303);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/disputes/${second.dispute.disputeId}`)).body.data.status,
      "accepted",
    );
    const again = await developer.post(`${other}/accept`, { confirm: "true" });
    assert.equal(again.status, 303);
    assert.match((await developer.get(other)).text, /no longer takes evidence or acceptance/);
    const audit = await service.services.db.query(
      "SELECT action FROM audit_log WHERE group_id = $1 AND action LIKE 'dispute.%' ORDER BY id",
      [group.groupId],
    );
    assert.deepEqual(
      audit.map((row) => row.action),
      ["dispute.evidence_submitted", "dispute.accepted"],
    );
  });
});
