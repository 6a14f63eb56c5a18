// The developers page's webhook endpoints: owners and developers add, edit, test, rotate, disable,
// enable and delete; viewers see them and cannot change them; the last attempts show the answer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cheapPasswordHashes, type PageClient, signedInUser } from "../../helpers/pages.ts";
import { Receiver } from "../../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

describe("webhook endpoints on the dashboard", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let receiver: Receiver;
  let developer: PageClient;
  let viewer: PageClient;
  before(async () => {
    receiver = new Receiver({ "/fulfil": () => ({ status: 200, body: '{"fulfilled":"yes"}' }) });
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
    group = await service.createGroup({ name: "Endpoint shop" });
    developer = await signedInUser(service, group, "dev@shop.example", "developer");
    viewer = await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const audited = async (action: string) =>
    (
      await service.services.db.query("SELECT 1 FROM audit_log WHERE group_id = $1 AND action = $2", [
        group.groupId,
        action,
      ])
    ).length;

  it("adds with the secret shown once, tests with the answer shown, edits, rotates, disables, enables and deletes", async () => {
    await developer.get("/dashboard/developers");
    const added = await developer.post("/dashboard/developers/endpoints", {
      url: `${receiver.url}/fulfil`,
      description: "Fulfilment",
      "payment.completed": "on",
    });
    assert.equal(added.status, 200, added.text);
    const secret = /id="endpoint-secret">(whsec_[^<]+)</.exec(added.text)?.[1];
    assert.ok(secret, "the new secret is shown");
    const page = await developer.get("/dashboard/developers");
    assert.ok(!page.text.includes(secret), "and never again");
    assert.match(page.text, /Fulfilment/);
    const endpointId = /action="\/dashboard\/developers\/endpoints\/([0-9a-f-]{36})\/test"/.exec(
      page.text,
    )?.[1];
    assert.ok(endpointId);

    assert.equal(
      (await developer.post(`/dashboard/developers/endpoints/${endpointId}/test`, {})).status,
      303,
    );
    await waitFor(async () => {
      const shown = await developer.get("/dashboard/developers");
      return /webhook\.test<\/span> 200 <code class="answer">\{&quot;fulfilled&quot;:&quot;yes&quot;\}/.test(
        shown.text,
      )
        ? true
        : undefined;
    });
    assert.match((await developer.get("/dashboard/developers")).text, /100 % of 1/);

    const edited = await developer.post(`/dashboard/developers/endpoints/${endpointId}`, {
      url: `${receiver.url}/fulfil`,
      description: "Warehouse",
      "payment.refunded": "on",
      "payment.failed": "on",
    });
    assert.equal(edited.status, 303);
    const endpoint = (await service.api(group, "GET", `/api/v1/webhook-endpoints/${endpointId}`)).body.data;
    assert.deepEqual([...endpoint.events].sort(), ["payment.failed", "payment.refunded"]);
    assert.equal(endpoint.description, "Warehouse");

    await developer.get("/dashboard/developers");
    const rotated = await developer.post(`/dashboard/developers/endpoints/${endpointId}/rotate`, {});
    assert.notEqual(/id="endpoint-secret">(whsec_[^<]+)</.exec(rotated.text)?.[1] ?? secret, secret);
    await developer.post(`/dashboard/developers/endpoints/${endpointId}/enabled`, { enabled: "false" });
    assert.match((await developer.get("/dashboard/developers")).text, /badge">disabled</);
    await developer.post(`/dashboard/developers/endpoints/${endpointId}/enabled`, { enabled: "true" });
    assert.match((await developer.get("/dashboard/developers")).text, /badge ok">enabled</);
    assert.equal(
      (await developer.post(`/dashboard/developers/endpoints/${endpointId}/delete`, {})).status,
      303,
    );
    assert.match((await developer.get("/dashboard/developers")).text, /No endpoints yet/);
    for (const action of ["created", "tested", "changed", "secret_rotated", "deleted"]) {
      assert.ok((await audited(`webhook_endpoint.${action}`)) >= 1, action);
    }
  });

  it("shows viewers the endpoints, without a form, and refuses their changes", async () => {
    const made = await service.api(group, "POST", "/api/v1/webhook-endpoints", {
      url: "https://hooks.example.com/v",
    });
    const page = await viewer.get("/dashboard/developers");
    assert.match(page.text, /hooks\.example\.com\/v/);
    assert.ok(!page.text.includes('id="add-endpoint"'));
    const refused = await viewer.post(
      `/dashboard/developers/endpoints/${made.body.data.endpointId}/delete`,
      {},
    );
    assert.equal(refused.status, 403);
    assert.equal(
      (await service.api(group, "GET", `/api/v1/webhook-endpoints/${made.body.data.endpointId}`)).status,
      200,
    );
  });
});
