// SERVICE_ROLES: an api-only instance serves HTTP and runs no worker; a workers-only
// instance runs the dispatcher and the sweepers and answers only its probes and metrics. Together,
// on one database, they do what one instance of both does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { stripeAdapter } from "../../src/processor/stripe/adapter.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("an api-only and a workers-only instance on one database", () => {
  let receiver: Receiver;
  let api: TestService;
  let workers: TestService;
  let group: TestGroup;
  let closeDatabase = async () => {};
  before(async () => {
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    const { db } = await createTestDatabase();
    // Both share the database; it is closed once, after both.
    const shared = { ...db, close: async () => {} };
    const allowed = { ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host };
    api = await startTestService({ ...allowed, SERVICE_ROLES: "api" }, { db: shared });
    workers = await startTestService(
      {
        ...allowed,
        SERVICE_ROLES: "workers",
        PROCESSOR: "stripe",
        STRIPE_SECRET_KEY: "sk_test_suite",
        STRIPE_WEBHOOK_SECRET: "whsec_roles_test",
      },
      {
        db: shared,
        processors: [
          stripeAdapter({
            secretKey: "sk_test_suite",
            webhookSecret: "whsec_roles_test",
            apiUrl: api.sandboxUrl,
          }),
        ],
      },
    );
    group = await api.createGroup({ name: "Roles" });
    closeDatabase = () => db.close();
  });
  after(async () => {
    await api.close();
    await workers.close();
    await closeDatabase();
    await receiver.stop();
  });

  it("says its roles on /health; the probes keep their documented bodies", async () => {
    const both = await startTestService();
    try {
      assert.deepEqual((await both.request("GET", "/health")).body.roles, ["api", "workers"]);
    } finally {
      await both.close();
    }
    assert.deepEqual((await api.request("GET", "/health")).body.roles, ["api"]);
    const health = await workers.request("GET", "/health");
    assert.equal(health.status, 200);
    assert.equal(health.body.status, "ok");
    assert.deepEqual(health.body.roles, ["workers"]);
    assert.deepEqual((await workers.request("GET", "/health/ready")).body, { status: "ready" });
  });

  it("serves no API, pages or processor events on a workers-only instance", async () => {
    for (const path of ["/api/v1/auth/test", "/dashboard/login", "/admin/v1/reconciliation"]) {
      assert.equal((await workers.request("GET", path)).status, 404, path);
    }
    assert.equal((await workers.request("POST", "/processor/webhooks/stripe", { body: {} })).status, 404);
  });

  it("delivers the events of the api instance's payments from the workers instance", async () => {
    const created = await api.createPayment(group, { webhookUrl: `${receiver.url}/hook` });
    assert.equal(created.status, 200);
    const id = created.body.data.transactionId as string;
    assert.equal((await api.api(group, "DELETE", `/api/v1/payments/${id}`)).status, 200);
    const delivered = await waitFor(async () =>
      receiver.received.find(
        (entry) => entry.path === "/hook" && JSON.parse(entry.body).transactionId === id,
      ),
    );
    assert.equal(JSON.parse(delivered.body).status, "cancelled");
  });

  it("sends nothing from the api-only instance: with the workers instance stopped, the event waits", async () => {
    await workers.close();
    const created = await api.createPayment(group, { webhookUrl: `${receiver.url}/hook` });
    const id = created.body.data.transactionId as string;
    assert.equal((await api.api(group, "DELETE", `/api/v1/payments/${id}`)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.received.filter((entry) => JSON.parse(entry.body).transactionId === id).length, 0);
    const [pending] = await api.services.db.query<{ state: string }>(
      "SELECT d.state FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.payment_id = $1",
      [id],
    );
    assert.equal(pending?.state, "pending", "queued for whichever workers instance comes next");
  });
});
