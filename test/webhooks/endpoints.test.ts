// Webhook endpoints (docs/webhooks.md, "Endpoints"): several per group, each with its events and
// its own secret, beside the payment's own webhookUrl; rotation, the test event, and the limits.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { claimDueDeliveries, recordAttempts } from "../../src/webhooks/sql/queue.ts";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { Receiver } from "../helpers/receiver.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { smtpListener } from "../helpers/smtp.ts";
import { waitFor } from "../helpers/wait.ts";

describe("webhook endpoints", () => {
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;
  let other: TestGroup;

  before(async () => {
    const paths = ["/own", "/fulfil", "/warehouse", "/off", "/rotated", "/tested", "/kept"];
    receiver = new Receiver(Object.fromEntries(paths.map((path) => [path, () => 200])));
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
    group = await service.createGroup();
    other = await service.createGroup({ name: "Another shop" });
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  const endpoints = (path = "", method = "GET", body?: unknown, owner = group) =>
    service.api(owner, method, `/api/v1/webhook-endpoints${path}`, body);
  const add = async (path: string, events?: string[]) => {
    const made = await endpoints("", "POST", { url: `${receiver.url}${path}`, ...(events && { events }) });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return made.body.data as { endpointId: string; secret: string; events: string[] };
  };
  const paid = async (webhookUrl?: string) => {
    const created = (await service.createPayment(group, webhookUrl ? { webhookUrl } : {})).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    return created.transactionId as string;
  };
  /** Waits until `check` holds (waitFor waits for a value, and false is one). */
  const until = (check: () => boolean) => waitFor(async () => (check() ? true : undefined));
  const bodiesAt = (path: string) => receiver.at(path).map((received) => JSON.parse(received.body));

  it("delivers each subscribed event to each enabled endpoint, besides the payment's own URL, each signed with its own secret and one webhook-id", async () => {
    const fulfil = await add("/fulfil", ["payment.completed"]);
    const warehouse = await add("/warehouse");
    assert.match(fulfil.secret, /^whsec_/);
    assert.deepEqual(warehouse.events.length, 5, "every event when none are named");
    const off = await add("/off");
    const disabled = await endpoints(`/${off.endpointId}`, "PATCH", { enabled: false });
    assert.equal(disabled.body.data.enabled, false);
    assert.equal(disabled.body.data.disabledReason, "disabled");

    const transactionId = await paid(`${receiver.url}/own`);
    await until(
      () =>
        receiver.at("/own").length > 0 &&
        receiver.at("/fulfil").length > 0 &&
        receiver.at("/warehouse").length > 0,
    );
    const [own, toFulfil, toWarehouse] = ["/own", "/fulfil", "/warehouse"].map(
      (path) => receiver.at(path)[0],
    );
    const ids = [own, toFulfil, toWarehouse].map((received) => received?.headers["webhook-id"]);
    assert.equal(new Set(ids).size, 1, "one webhook-id wherever the event goes");
    assert.equal(JSON.parse(toFulfil?.body ?? "{}").transactionId, transactionId);
    // Each is signed with its own secret and no other.
    new Webhook(fulfil.secret).verify(toFulfil?.body ?? "", toFulfil?.headers as Record<string, string>);
    new Webhook(warehouse.secret).verify(
      toWarehouse?.body ?? "",
      toWarehouse?.headers as Record<string, string>,
    );
    new Webhook(group.webhookSecret).verify(own?.body ?? "", own?.headers as Record<string, string>);
    assert.throws(() =>
      new Webhook(fulfil.secret).verify(
        toWarehouse?.body ?? "",
        toWarehouse?.headers as Record<string, string>,
      ),
    );

    // A refund: the warehouse takes it, fulfilment does not; a disabled endpoint gets nothing.
    const refunded = await service.api(group, "POST", `/api/v1/payments/${transactionId}/refunds`, {
      amount: 100,
    });
    assert.equal(refunded.status, 201);
    await until(() => bodiesAt("/warehouse").some((body) => body.event === "payment.refunded"));
    assert.deepEqual(
      bodiesAt("/fulfil").map((body) => body.event),
      ["payment.completed"],
    );
    assert.equal(receiver.at("/off").length, 0);
  });

  it("rotates a secret: during the grace both sign; the answer shows the new one once", async () => {
    const { endpointId, secret: old } = await add("/rotated", ["payment.completed"]);
    const rotated = await endpoints(`/${endpointId}/rotate-secret`, "POST", { graceSeconds: 600 });
    assert.equal(rotated.status, 200);
    const fresh = rotated.body.data.secret as string;
    assert.notEqual(fresh, old);
    const before = receiver.at("/rotated").length;
    await paid();
    await until(() => receiver.at("/rotated").length > before);
    const mine = receiver
      .at("/rotated")
      .slice(before)
      .filter((received) => received.headers["webhook-signature"]?.toString().split(" ").length === 2);
    assert.ok(mine.length >= 1, "a delivery signed twice");
    const signed = mine[0];
    new Webhook(fresh).verify(signed?.body ?? "", signed?.headers as Record<string, string>);
    new Webhook(old).verify(signed?.body ?? "", signed?.headers as Record<string, string>);
    assert.equal((await endpoints(`/${endpointId}`)).body.data.secret, undefined, "never shown again");
  });

  it("sends one signed webhook.test event on request, and keeps it out of the events feed", async () => {
    const { endpointId, secret } = await add("/tested");
    const before = receiver.at("/tested").length;
    const tested = await endpoints(`/${endpointId}/test`, "POST");
    assert.equal(tested.status, 202);
    await until(() => receiver.at("/tested").length > before);
    const received = receiver.at("/tested")[before];
    const body = JSON.parse(received?.body ?? "{}");
    assert.deepEqual(Object.keys(body), ["event", "endpointId", "timestamp"]);
    assert.equal(body.event, "webhook.test");
    assert.equal(body.endpointId, endpointId);
    new Webhook(secret).verify(received?.body ?? "", received?.headers as Record<string, string>);
    const feed = await service.api(
      group,
      "GET",
      `/api/v1/events?since=${new Date(Date.now() - 600_000).toISOString()}`,
    );
    assert.equal(feed.status, 200, JSON.stringify(feed.body));
    assert.ok(!JSON.stringify(feed.body).includes("webhook.test"));
  });

  it("lists, reads, changes and deletes; another group's is not found", async () => {
    const { endpointId } = await add("/kept");
    const listed = await endpoints();
    assert.ok(
      listed.body.data.endpoints.some((each: { endpointId: string }) => each.endpointId === endpointId),
    );
    assert.equal((await endpoints(`/${endpointId}`, "GET", undefined, other)).status, 404);
    assert.equal((await endpoints(`/${endpointId}`, "PATCH", { enabled: false }, other)).status, 404);
    assert.equal((await endpoints(`/${endpointId}`, "DELETE", undefined, other)).status, 404);
    const changed = await endpoints(`/${endpointId}`, "PATCH", {
      description: "warehouse",
      events: ["payment.failed"],
    });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body.data.events, ["payment.failed"]);
    assert.equal(changed.body.data.description, "warehouse");
    assert.equal((await endpoints(`/${endpointId}`, "DELETE")).status, 200);
    assert.equal((await endpoints(`/${endpointId}`)).status, 404);
    assert.equal((await endpoints("/not-a-uuid")).status, 404);
  });

  it("refuses an unknown event, a private host, a bad body and a 17th endpoint, and changes nothing", async () => {
    const count = async () => (await endpoints("", "GET", undefined, other)).body.data.endpoints.length;
    const unknown = await endpoints(
      "",
      "POST",
      { url: "https://hooks.example.com/x", events: ["payment.made"] },
      other,
    );
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /payment\.made/);
    const private_ = await endpoints("", "POST", { url: "http://10.0.0.8/hook" }, other);
    assert.equal(private_.status, 400);
    assert.match(private_.body.error.message, /unreachable-host rule/);
    for (const body of [{}, { url: 42 }, { url: "https://hooks.example.com/x", events: [] }]) {
      assert.equal((await endpoints("", "POST", body, other)).status, 400, JSON.stringify(body));
    }
    assert.equal(await count(), 0);
    const made = await Promise.all(
      Array.from({ length: 17 }, (_, index) =>
        endpoints("", "POST", { url: `https://hooks.example.com/${index}` }, other),
      ),
    );
    assert.equal(
      made.filter((answer) => answer.status === 201).length,
      16,
      "two at once cannot both take the last place",
    );
    assert.equal(made.filter((answer) => answer.status === 400).length, 1);
    assert.equal(await count(), 16);
  });
});

describe("an endpoint that keeps failing, and one that is slow", () => {
  cheapPasswordHashes();
  let receiver: Receiver;
  let service: TestService;
  let group: TestGroup;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  let failing = true;

  before(async () => {
    receiver = new Receiver({
      "/broken": () => (failing ? 500 : 200),
      "/slow": async () => {
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        return 200;
      },
      "/quick": () => 200,
    });
    await receiver.start();
    smtp = await smtpListener();
    service = await startTestService({
      ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05",
      WEBHOOK_TIMEOUT_MS: "12000",
      // About 1.8 s of failures disable an endpoint.
      WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS: "0.0005",
      SMTP_URL: smtp.url,
    });
    group = await service.createGroup();
    await signedInUser(service, group, "owner@shop.example", "owner");
    await signedInUser(service, group, "dev@shop.example", "developer");
    await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(async () => {
    await service.close();
    await receiver.stop();
    await smtp.close();
  });

  const add = async (path: string) =>
    (await service.api(group, "POST", "/api/v1/webhook-endpoints", { url: `${receiver.url}${path}` })).body
      .data as {
      endpointId: string;
    };
  /** What `path` has received once 300 ms pass with nothing more (at most 3 s). */
  const settledCount = async (path: string) => {
    let count = receiver.at(path).length;
    for (let wait = 0; wait < 10; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (receiver.at(path).length === count) break;
      count = receiver.at(path).length;
    }
    return count;
  };
  const complete = async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    return created.transactionId as string;
  };

  it("is disabled after failing for the configured time, audited, and its owners and developers are e-mailed; recovery sends what it missed", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { endpointId } = await add("/broken");
    await complete();
    const disabled = await waitFor(async () => {
      await complete();
      const endpoint = (await service.api(group, "GET", `/api/v1/webhook-endpoints/${endpointId}`)).body.data;
      return endpoint.enabled ? undefined : endpoint;
    }, 15_000);
    assert.equal(disabled.disabledReason, "failing");
    const audit = await service.services.db.query<{ actor: string }>(
      "SELECT actor FROM audit_log WHERE action = 'webhook_endpoint.disabled' AND target = $1",
      [endpointId],
    );
    assert.deepEqual(audit, [{ actor: "system" }]);
    // The invites went by mail too: only the endpoint's alerts are counted.
    const alerts = () => smtp.messages.filter((message) => /webhook endpoint/.test(message.body));
    await waitFor(async () => (alerts().length >= 2 ? true : undefined));
    const told = alerts()
      .flatMap((message) => message.to)
      .sort();
    assert.deepEqual(told, ["dev@shop.example", "owner@shop.example"], "owners and developers, not viewers");

    // Disabled: new events are recorded and not sent to it. An attempt already under way when it
    // was disabled may still land; its retry is given up, so the count settles.
    const before = await settledCount("/broken");
    const afterDisabling = await complete();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.at("/broken").length, before);
    assert.ok(
      !receiver.at("/broken").some((received) => JSON.parse(received.body).transactionId === afterDisabling),
    );

    // Fixed and enabled again: nothing old goes by itself; recovery sends the window's events once.
    failing = false;
    const enabled = await service.api(group, "PATCH", `/api/v1/webhook-endpoints/${endpointId}`, {
      enabled: true,
    });
    assert.equal(enabled.body.data.disabledReason, null);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.at("/broken").length, before);
    const recovered = await service.api(group, "POST", "/api/v1/events/recover", { since, endpointId });
    assert.equal(recovered.status, 202, JSON.stringify(recovered.body));
    assert.ok(recovered.body.data.queued >= 3, JSON.stringify(recovered.body));
    await waitFor(async () =>
      receiver.at("/broken").filter((received) => received.headers["webhook-id"]).length >=
      before + recovered.body.data.queued
        ? true
        : undefined,
    );
    const again = await service.api(group, "POST", "/api/v1/events/recover", { since, endpointId });
    assert.equal(again.body.data.queued, 0, "what it received is not sent twice");
    const elsewhere = await service.createGroup({ name: "Elsewhere" });
    const foreign = await service.api(elsewhere, "POST", "/api/v1/events/recover", { since, endpointId });
    assert.equal(foreign.status, 404);
  });

  it("one endpoint answering after 10 s does not hold back another", async () => {
    await add("/slow");
    await add("/quick");
    const started = Date.now();
    const transactionId = await complete();
    const quick = await waitFor(async () =>
      receiver.at("/quick").find((received) => JSON.parse(received.body).transactionId === transactionId),
    );
    assert.ok(quick.at - started < 3000, `the quick endpoint waited ${quick.at - started} ms`);
  });
});

describe("an endpoint disabled while an attempt to it is under way", () => {
  let service: TestService;
  after(async () => {
    await service?.close();
  });

  it("gives up that attempt's retry, as it gave up the deliveries not under way", async () => {
    // No dispatcher here: the test claims and records the attempt itself, around the disabling.
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1", SERVICE_ROLES: "api" });
    const group = await service.createGroup();
    const { endpointId } = (
      await service.api(group, "POST", "/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" })
    ).body.data;
    const created = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    const db = service.services.db;
    const [claimed] = await waitFor(async () => {
      const rows = await claimDueDeliveries(db, {
        limit: 10,
        saturated: [],
        held: [],
        holdLimit: 10,
        leaseMs: 60_000,
        sentTimestamp: new Date().toISOString(),
      });
      return rows.length > 0 ? rows : undefined;
    });
    assert.equal(claimed?.endpoint_id, endpointId);
    const disabled = await service.api(group, "PATCH", `/api/v1/webhook-endpoints/${endpointId}`, {
      enabled: false,
    });
    assert.equal(disabled.status, 200);
    await recordAttempts(db, [
      {
        deliveryId: claimed?.id as string,
        attempt: claimed?.attempts as number,
        attemptedAt: new Date(),
        statusCode: 500,
        error: null,
        durationMs: 5,
        answer: null,
        state: "pending",
        retryDelayMs: 50,
        endpointId,
      },
    ]);
    const [row] = await db.query<{ state: string; last_error: string; last_status_code: number }>(
      "SELECT state, last_error, last_status_code FROM webhook_deliveries WHERE id = $1",
      [claimed?.id],
    );
    assert.deepEqual(row, { state: "failed", last_error: "endpoint disabled", last_status_code: 500 });
  });
});
