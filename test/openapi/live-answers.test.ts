import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OPERATION_IDS } from "../../src/openapi/operations.ts";
import { paidOrphan } from "../helpers/orphans.ts";
import { Receiver } from "../helpers/receiver.ts";
import { ADMIN_TOKEN, startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

// The document and the answers are JSON of any shape; the assertions are the type checks here.
// biome-ignore lint/suspicious/noExplicitAny: walking arbitrary JSON
type Json = Record<string, any>;

describe("the OpenAPI document is exact (issue: OpenAPI exact)", () => {
  let service: TestService;
  let group: TestGroup;
  let document: Json;
  let ajv: Ajv2020;
  let receiver: Receiver;
  /** operationId → the statuses whose live answers matched the document. */
  const checked = new Map<string, Set<number>>();

  before(async () => {
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    service = await startTestService({ ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host });
    group = await service.createGroup({ name: "Documented" });
    document = await (await fetch(`${service.url}/openapi.json`)).json();
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(document, "openapi");
  });
  after(async () => {
    await service.close();
    await receiver.stop();
  });

  /** The operation a request reached, by matching its path against the document's templates. */
  const operationOf = (method: string, url: string): [string, Json] => {
    const path = new URL(url, "http://x").pathname;
    for (const [template, item] of Object.entries(document.paths as Json)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      const operation = (item as Json)[method.toLowerCase()];
      if (pattern.test(path) && operation) return [template, operation];
    }
    assert.fail(`${method} ${path} is not in the document`);
  };

  /** Sends a request and checks its answer against the document: status declared, body matching. */
  const call = async (
    who: "merchant" | "admin" | "none",
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const credentials: Record<string, string> =
      who === "merchant"
        ? { "x-public-key": group.publicKey, "x-secret-key": group.secretKey }
        : who === "admin"
          ? { authorization: `Bearer ${ADMIN_TOKEN}` }
          : {};
    const response = await fetch(`${service.url}${url}`, {
      method,
      headers: {
        ...credentials,
        ...(body !== undefined && { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const [template, operation] = operationOf(method, url);
    const where = `${method} ${template} → ${response.status}`;
    let declared: Json | undefined = operation.responses?.[String(response.status)];
    assert.ok(declared, `${where} is not declared: ${text.slice(0, 200)}`);
    if (declared.$ref) declared = document.components.responses[declared.$ref.split("/").pop()];
    const schema = declared?.content?.["application/json"]?.schema;
    const parsed = text ? JSON.parse(text) : undefined;
    if (schema) {
      const pointer =
        declared === operation.responses[String(response.status)]
          ? `openapi#/paths/${template.replaceAll("~", "~0").replaceAll("/", "~1")}/${method.toLowerCase()}/responses/${response.status}/content/application~1json/schema`
          : "openapi#/components/schemas/Error";
      const validate = ajv.compile({ $ref: pointer });
      assert.ok(validate(parsed), `${where}: ${JSON.stringify(validate.errors)} in ${text.slice(0, 300)}`);
    }
    for (const name of Object.keys(declared?.headers ?? {})) {
      if (["Retry-After", "Idempotent-Replayed"].includes(name)) continue;
      assert.ok(response.headers.has(name), `${where} lacks the documented header ${name}`);
    }
    const statuses = checked.get(operation.operationId) ?? new Set<number>();
    statuses.add(response.status);
    checked.set(operation.operationId, statuses);
    return { status: response.status, body: parsed as Json, headers: response.headers };
  };

  it("Redocly's recommended ruleset finds nothing", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: "openapi.json",
      config,
    });
    assert.deepEqual(
      problems.map(
        (problem) =>
          `${problem.severity} ${problem.ruleId}: ${problem.message} ${problem.location[0]?.pointer}`,
      ),
      [],
    );
  });

  it("names every operation as a generated client would, with a summary, and the outgoing webhook", () => {
    const seen: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        assert.equal(operation.operationId, OPERATION_IDS[`${method} ${path}`], `${method} ${path}`);
        assert.ok(operation.summary, `${method} ${path} has a summary`);
        seen.push(operation.operationId);
      }
    }
    assert.deepEqual(seen.sort(), Object.values(OPERATION_IDS).sort(), "every named operation is a route");
    for (const name of ["Error", "Payment", "Refund", "Event", "WebhookPayload"]) {
      assert.ok(document.components.schemas[name], `schema ${name}`);
    }
    assert.equal(document.openapi, "3.1.0");
    assert.ok(document.webhooks.paymentEvent.post.requestBody);
  });

  it("every route's live answers, success and error, match the document", async () => {
    // Payments
    const payment = {
      amount: 1999,
      currency: "usd",
      customerEmail: "jane@example.com",
      successUrl: "https://shop.example.com/ok",
      cancelUrl: "https://shop.example.com/cart",
      webhookUrl: `${receiver.url}/hook`,
    };
    const created = await call("merchant", "POST", "/api/v1/payments/create", payment, {
      "idempotency-key": "doc-1",
    });
    assert.equal(created.status, 200);
    const id = created.body.data.transactionId as string;
    const replay = await call("merchant", "POST", "/api/v1/payments/create", payment, {
      "idempotency-key": "doc-1",
    });
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    await call("merchant", "POST", "/api/v1/payments/create", { amount: "100" });
    await call("merchant", "POST", "/api/v1/payments/create", "amount=1", { "content-type": "text/plain" });
    await call("merchant", "POST", "/api/v1/payments/create", JSON.stringify({ pad: "x".repeat(70_000) }));
    await call(
      "merchant",
      "POST",
      "/api/v1/payments/create",
      {
        amount: 1999,
        currency: "usd",
        customerEmail: "jane@example.com",
        successUrl: "https://shop.example.com/ok",
        cancelUrl: "https://shop.example.com/other",
      },
      { "idempotency-key": "doc-1" },
    );
    await call("none", "POST", "/api/v1/payments/create", {});
    await call("merchant", "GET", `/api/v1/payments/${id}`);
    await call("merchant", "GET", "/api/v1/payments/00000000-0000-0000-0000-000000000000");
    await call("merchant", "GET", "/api/v1/payments?limit=2");
    await call("merchant", "GET", "/api/v1/payments?limit=abc");
    await call("merchant", "GET", "/api/v1/auth/test");
    await call("none", "GET", "/api/v1/auth/test");

    // Paid, refunded, its events
    const session = created.body.data.sessionId as string;
    await service.sandboxPost(`/sandbox/sessions/${session}/complete`, { outcome: "succeeded" });
    await waitFor(async () =>
      (await service.api(group, "GET", `/api/v1/payments/${id}`)).body.data.status === "succeeded"
        ? true
        : undefined,
    );
    await call(
      "merchant",
      "POST",
      `/api/v1/payments/${id}/refunds`,
      { amount: 500 },
      { "idempotency-key": "r-1" },
    );
    await call("merchant", "POST", `/api/v1/payments/${id}/refunds`, { amount: 999999 });
    await call("merchant", "POST", `/api/v1/payments/${id}/refunds`, "x", { "content-type": "text/plain" });
    await call("merchant", "GET", `/api/v1/payments/${id}/refunds`);
    await call("merchant", "GET", "/api/v1/payments/00000000-0000-0000-0000-000000000000/refunds");
    // Its dispute: the inbox, one, the payment's, evidence and acceptance with their refusals.
    const contested = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${contested.sessionId}/complete`, { outcome: "succeeded" });
    const paid = await waitFor(async () => {
      const payment = (await service.api(group, "GET", `/api/v1/payments/${contested.transactionId}`)).body
        .data;
      return payment.status === "succeeded" ? payment : undefined;
    });
    await service.sandboxPost(`/sandbox/payment_intents/${paid.processorPaymentIntentId}/dispute`);
    const [dispute] = await waitFor(async () => {
      const list = (await service.api(group, "GET", `/api/v1/payments/${paid.id}/disputes`)).body.data
        .disputes;
      return list.length > 0 ? list : undefined;
    });
    await call("merchant", "GET", "/api/v1/disputes?limit=5");
    await call("merchant", "GET", "/api/v1/disputes?limit=0");
    await call("merchant", "GET", `/api/v1/disputes/${dispute.disputeId}`);
    await call("merchant", "GET", "/api/v1/disputes/00000000-0000-0000-0000-000000000000");
    await call("merchant", "GET", `/api/v1/payments/${paid.id}/disputes`);
    await call("merchant", "GET", "/api/v1/payments/00000000-0000-0000-0000-000000000000/disputes");
    await call("merchant", "POST", `/api/v1/disputes/${dispute.disputeId}/evidence`, {
      productDescription: "Tea",
    });
    await call("merchant", "POST", `/api/v1/disputes/${dispute.disputeId}/evidence`, { nope: 1 });
    await call("merchant", "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
    await call("merchant", "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
    await call("merchant", "POST", "/api/v1/disputes/00000000-0000-0000-0000-000000000000/accept");
    await call("merchant", "DELETE", `/api/v1/payments/${id}`);
    const cancellable = (await service.createPayment(group)).body.data.transactionId;
    await call("merchant", "DELETE", `/api/v1/payments/${cancellable}`);
    const events = await call("merchant", "GET", `/api/v1/payments/${id}/events`);
    await call("merchant", "GET", "/api/v1/payments/00000000-0000-0000-0000-000000000000/events");
    const eventId = events.body.data[0].eventId as string;
    await call("merchant", "POST", `/api/v1/payments/${id}/events/${eventId}/resend`);
    await call(
      "merchant",
      "POST",
      `/api/v1/payments/${id}/events/00000000-0000-0000-0000-000000000000/resend`,
    );
    await call("merchant", "GET", `/api/v1/events?since=${new Date(Date.now() - 60_000).toISOString()}`);
    await call("merchant", "GET", "/api/v1/events?since=yesterday");
    await call("merchant", "POST", "/api/v1/events/recover", {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    await call("merchant", "POST", "/api/v1/events/recover", { since: "nope" });
    await call("merchant", "POST", "/api/v1/sandbox/trigger", { event: "payment.failed" });
    await call("merchant", "POST", "/api/v1/sandbox/trigger", { event: "payment.nope" });
    const stream = await fetch(`${service.url}/api/v1/events/stream`, {
      headers: { "x-public-key": group.publicKey, "x-secret-key": group.secretKey, connection: "close" },
    });
    assert.equal(stream.status, 200);
    assert.ok(operationOf("GET", "/api/v1/events/stream")[1].responses["200"].content["text/event-stream"]);
    await stream.body?.cancel();
    checked.set("streamEvents", new Set([200]));
    await call("merchant", "GET", "/api/v1/events/stream", undefined, { "last-event-id": "nope" });

    // Admin
    const newGroup = await call("admin", "POST", "/admin/v1/groups", { name: "Docs shop" });
    await call("admin", "POST", "/admin/v1/groups", { name: "" });
    await call("none", "POST", "/admin/v1/groups", { name: "x" });
    const groupId = newGroup.body.data.groupId as string;
    await call("admin", "GET", "/admin/v1/groups");
    await call("admin", "GET", "/admin/v1/groups?limit=0");
    await call("admin", "GET", `/admin/v1/groups/${groupId}`);
    await call("admin", "GET", "/admin/v1/groups/00000000-0000-0000-0000-000000000000");
    await call("admin", "POST", `/admin/v1/groups/${groupId}/webhook-secret/rotate`, {});
    await call(
      "admin",
      "POST",
      "/admin/v1/groups/00000000-0000-0000-0000-000000000000/webhook-secret/rotate",
      {},
    );
    const site = await call("admin", "POST", `/admin/v1/groups/${groupId}/safe-sites`, {
      name: "Two",
      url: "https://pay2.docs.example",
    });
    await call("admin", "POST", `/admin/v1/groups/${groupId}/safe-sites`, { name: "Two" });
    await call("admin", "PATCH", `/admin/v1/safe-sites/${site.body.data.id}`, { isActive: false });
    await call("admin", "PATCH", "/admin/v1/safe-sites/00000000-0000-0000-0000-000000000000", {
      isActive: false,
    });
    const key = await call("admin", "POST", `/admin/v1/groups/${groupId}/keys`);
    await call("admin", "POST", "/admin/v1/groups/00000000-0000-0000-0000-000000000000/keys");
    await call("admin", "DELETE", `/admin/v1/keys/${key.body.data.publicKey}`);
    await call("admin", "DELETE", "/admin/v1/keys/pk_nope");
    await call("admin", "GET", "/admin/v1/reconciliation");
    await call("none", "GET", "/admin/v1/reconciliation");
    const run = await call("admin", "POST", "/admin/v1/reconciliation/runs", {
      since: new Date(Date.now() - 3_600_000).toISOString(),
    });
    await call("admin", "POST", "/admin/v1/reconciliation/runs", { since: "nope" });
    await waitFor(async () =>
      (await service.admin("GET", `/admin/v1/reconciliation/runs/${run.body.data.runId}`)).body.data
        .status === "finished"
        ? true
        : undefined,
    );
    await call("admin", "GET", `/admin/v1/reconciliation/runs/${run.body.data.runId}`);
    await call("admin", "GET", "/admin/v1/reconciliation/runs/00000000-0000-0000-0000-000000000000");
    const orphan = await paidOrphan(service, await service.createGroup({ name: "Orphans" }));
    await call("admin", "POST", `/admin/v1/reconciliation/items/${orphan.itemId}/refund`);
    await call("admin", "POST", `/admin/v1/reconciliation/items/${orphan.itemId}/refund`);
    await call("admin", "POST", "/admin/v1/reconciliation/items/not-an-item/refund");
    await call("admin", "POST", `/admin/v1/payments/${id}/refunds`, {});
    await call("admin", "POST", "/admin/v1/payments/00000000-0000-0000-0000-000000000000/refunds", {});
    await call("admin", "GET", "/admin/v1/deliveries/failed");
    await call("none", "GET", "/admin/v1/deliveries/failed");
    await call("admin", "PUT", `/admin/v1/groups/${groupId}/routing`, {
      routes: [{ currency: "usd", processors: ["stripe"] }],
    });
    await call("admin", "PUT", `/admin/v1/groups/${groupId}/routing`, {
      routes: [{ processors: ["paypal"] }],
    });
    await call("admin", "GET", `/admin/v1/groups/${groupId}/routing`);
    await call("admin", "GET", "/admin/v1/groups/00000000-0000-0000-0000-000000000000/routing");
    await call("admin", "DELETE", `/admin/v1/groups/${groupId}/routing`);
    await call("none", "DELETE", `/admin/v1/groups/${groupId}/routing`);
    // Payment links, the group's webhook URL, branding
    const link = await call("merchant", "POST", "/api/v1/payment-links", {
      name: "Gift card",
      currency: "usd",
      amount: 2500,
    });
    assert.equal(link.status, 201);
    const linkId = link.body.data.linkId as string;
    await call("merchant", "POST", "/api/v1/payment-links", { name: "", currency: "usd" });
    await call("merchant", "GET", "/api/v1/payment-links?limit=1");
    await call("merchant", "GET", "/api/v1/payment-links?limit=0");
    await call("merchant", "GET", `/api/v1/payment-links/${linkId}`);
    await call("merchant", "GET", "/api/v1/payment-links/00000000-0000-0000-0000-000000000000");
    await call("merchant", "PATCH", `/api/v1/payment-links/${linkId}`, { active: false });
    await call("merchant", "PATCH", `/api/v1/payment-links/${linkId}`, { active: "no" });
    await call("merchant", "PUT", "/api/v1/webhook-settings", { url: "https://shop.example.com/hooks" });
    await call("merchant", "PUT", "/api/v1/webhook-settings", { url: "ftp://shop.example.com" });
    await call("merchant", "GET", "/api/v1/webhook-settings");
    await call("none", "GET", "/api/v1/webhook-settings");
    const endpoint = await call("merchant", "POST", "/api/v1/webhook-endpoints", {
      url: "https://shop.example.com/endpoint",
      events: ["payment.completed"],
    });
    const endpointId = endpoint.body.data.endpointId as string;
    await call("merchant", "POST", "/api/v1/webhook-endpoints", {
      url: "https://shop.example.com/x",
      events: ["nope"],
    });
    await call("merchant", "GET", "/api/v1/webhook-endpoints");
    await call("none", "GET", "/api/v1/webhook-endpoints");
    await call("merchant", "GET", `/api/v1/webhook-endpoints/${endpointId}`);
    await call("merchant", "GET", "/api/v1/webhook-endpoints/00000000-0000-0000-0000-000000000000");
    await call("merchant", "PATCH", `/api/v1/webhook-endpoints/${endpointId}`, { description: "fulfilment" });
    await call("merchant", "PATCH", `/api/v1/webhook-endpoints/${endpointId}`, { enabled: "no" });
    await call("merchant", "POST", `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
      graceSeconds: 60,
    });
    await call("merchant", "POST", `/api/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
      graceSeconds: -1,
    });
    await call("merchant", "POST", `/api/v1/webhook-endpoints/${endpointId}/test`);
    await call("merchant", "POST", "/api/v1/webhook-endpoints/00000000-0000-0000-0000-000000000000/test");
    await call("merchant", "DELETE", `/api/v1/webhook-endpoints/${endpointId}`);
    await call("merchant", "DELETE", `/api/v1/webhook-endpoints/${endpointId}`);
    await call("merchant", "PUT", "/api/v1/branding", {
      displayName: "Documented Shop",
      brandColor: "#1a7f5a",
    });
    await call("merchant", "PUT", "/api/v1/branding", { brandColor: "green" });
    await call("merchant", "GET", "/api/v1/branding");
    await call("none", "GET", "/api/v1/branding");
    await call("merchant", "POST", "/api/v1/customers/erase", { email: "jane@example.com" });
    await call("merchant", "POST", "/api/v1/customers/erase", { email: "not an address" });
    await call("admin", "POST", "/admin/v1/customers/erase", { email: "jane@example.com" });
    await call("admin", "POST", "/admin/v1/customers/erase", {
      email: "jane@example.com",
      groupId: "00000000-0000-0000-0000-000000000000",
    });

    await call("admin", "POST", "/admin/v1/deliveries/recover", { since: "2026-01-01T00:00:00Z" });
    await call("admin", "POST", "/admin/v1/deliveries/recover", {});
    await call("admin", "POST", `/admin/v1/groups/${groupId}/users`, {
      email: "owner@docs.example",
      role: "owner",
    });
    await call("admin", "POST", `/admin/v1/groups/${groupId}/users`, {
      email: "owner@docs.example",
      role: "king",
    });
    await call("admin", "POST", "/admin/v1/operators", { email: "ops@docs.example" });
    await call("admin", "POST", "/admin/v1/operators", { email: "not an email" });
    await call("admin", "POST", "/admin/v1/accounts/password-resets", {
      email: "owner@docs.example",
      audience: "dashboard",
    });
    await call("admin", "POST", "/admin/v1/accounts/password-resets", { audience: "nobody" });

    for (const operationId of Object.values(OPERATION_IDS)) {
      const statuses = [...(checked.get(operationId) ?? [])];
      assert.ok(
        statuses.some((status) => status < 300),
        `${operationId}: a success answer was checked`,
      );
      if (operationId !== "streamEvents") {
        assert.ok(
          statuses.some((status) => status >= 400),
          `${operationId}: an error answer was checked (${statuses})`,
        );
      }
    }
  });
});
