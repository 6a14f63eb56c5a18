// The group's webhook URL, for payments that have none of their own (docs/api.md, "Webhook
// settings").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("the group's webhook URL", () => {
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  before(async () => {
    receiver = new Receiver({ "/group": () => 200, "/own": () => 200 });
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host });
    group = await service.createGroup();
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const settle = async (transactionId: string) => {
    const payment = (await service.api(group, "GET", `/api/v1/payments/${transactionId}`)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${payment.processorSessionId}/complete`, {
      outcome: "succeeded",
    });
  };

  it("is set, read and cleared, and audited", async () => {
    assert.deepEqual((await service.api(group, "GET", "/api/v1/webhook-settings")).body.data, { url: null });
    const set = await service.api(group, "PUT", "/api/v1/webhook-settings", { url: `${receiver.url}/group` });
    assert.deepEqual([set.status, set.body.data], [200, { url: `${receiver.url}/group` }]);
    assert.deepEqual((await service.api(group, "GET", "/api/v1/webhook-settings")).body.data, {
      url: `${receiver.url}/group`,
    });
    for (const body of [{ url: "not a url" }, { url: "ftp://example.com/x" }, {}, { url: 5 }]) {
      assert.equal((await service.api(group, "PUT", "/api/v1/webhook-settings", body)).status, 400);
    }
    const audit = await service.services.db.query(
      "SELECT 1 FROM audit_log WHERE action = 'webhook_settings.changed'",
    );
    assert.equal(audit.length, 1);
  });

  it("gets the events of payments without a webhookUrl; a payment with its own gets them there only", async () => {
    const plain = (await service.createPayment(group)).body.data.transactionId;
    const own = (await service.createPayment(group, { webhookUrl: `${receiver.url}/own` })).body.data
      .transactionId;
    await settle(plain);
    await settle(own);
    await waitFor(async () =>
      receiver.at("/group").length >= 1 && receiver.at("/own").length >= 1 ? true : undefined,
    );
    const idsAt = (path: string) => receiver.at(path).map((hit) => JSON.parse(hit.body).transactionId);
    assert.deepEqual(idsAt("/group"), [plain]);
    assert.deepEqual(idsAt("/own"), [own]);
  });

  it("refuses a URL the unreachable-host rule refuses with 400 naming the rule, and keeps the one set", async () => {
    const kept = `${receiver.url}/group`;
    assert.equal((await service.api(group, "PUT", "/api/v1/webhook-settings", { url: kept })).status, 200);
    for (const url of [
      "http://169.254.169.254/hook",
      "http://10.0.0.5/hooks",
      "http://192.168.1.20/hooks",
      "http://localhost/x",
    ]) {
      const refused = await service.api(group, "PUT", "/api/v1/webhook-settings", { url });
      assert.equal(refused.status, 400, url);
      assert.equal(refused.body.error.code, "INVALID_REQUEST");
      assert.match(refused.body.error.message, /private or unreachable/);
    }
    assert.deepEqual((await service.api(group, "GET", "/api/v1/webhook-settings")).body.data, { url: kept });
    assert.deepEqual((await service.api(group, "PUT", "/api/v1/webhook-settings", { url: null })).body.data, {
      url: null,
    });
  });
});
