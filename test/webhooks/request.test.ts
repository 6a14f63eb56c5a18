import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { buildRequest, USER_AGENT } from "../../src/webhooks/request.ts";
import { classify } from "../../src/webhooks/sender.ts";

const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const now = new Date("2026-03-01T12:00:00Z");

const delivery = (overrides: Partial<Parameters<typeof buildRequest>[0]> = {}) => ({
  event_id: "7b0c8d52-6a3e-4f1b-9c2d-0e1f2a3b4c5d",
  event: "payment.completed",
  payment_id: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
  payload: {
    event: "payment.completed",
    transactionId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
    status: "succeeded",
  },
  sent_timestamp: "2026-03-01T11:59:00.000Z",
  webhook_secret: secret(),
  previous_webhook_secrets: [],
  ...overrides,
});

const verify = (key: string, request: ReturnType<typeof buildRequest>) =>
  new Webhook(key).verify(request.body, request.headers);

describe("webhook request building and signing", () => {
  it("sends the documented headers, and the body with timestamp last, kept from the first send", () => {
    const request = buildRequest(delivery(), now);
    assert.equal(request.headers["user-agent"], USER_AGENT);
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["x-service-event"], "payment.completed");
    assert.equal(request.headers["x-service-transaction"], "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b");
    assert.equal(request.headers["x-service-timestamp"], "2026-03-01T11:59:00.000Z");
    const body = JSON.parse(request.body);
    assert.deepEqual(Object.keys(body), ["event", "transactionId", "status", "timestamp"]);
    assert.equal(body.timestamp, request.headers["x-service-timestamp"]);
  });

  it("is verified by the standardwebhooks library, and a forged body is not", () => {
    const target = delivery();
    const request = buildRequest(target, new Date());
    assert.equal(request.headers["webhook-id"], target.event_id);
    assert.ok(verify(target.webhook_secret, request));
    assert.throws(() =>
      verify(target.webhook_secret, { ...request, body: request.body.replace("succeeded", "failed") }),
    );
    assert.throws(() => verify(secret(), request));
  });

  it("signs with every secret still in its grace period, each until its own expiry", () => {
    const oldest = secret();
    const previous = secret();
    const in60s = new Date(Date.now() + 60_000).toISOString();
    const during = delivery({
      previous_webhook_secrets: [
        { secret: oldest, expiresAt: in60s },
        { secret: previous, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      ],
    });
    const all = buildRequest(during, new Date());
    assert.equal(all.headers["webhook-signature"].split(" ").length, 3);
    assert.ok(verify(during.webhook_secret, all));
    assert.ok(verify(previous, all));
    assert.ok(verify(oldest, all));

    const later = buildRequest(during, new Date(Date.now() + 120_000));
    assert.equal(later.headers["webhook-signature"].split(" ").length, 2, "the oldest has expired");
    assert.throws(() => verify(oldest, later));
    assert.ok(verify(previous, later));
  });

  it("classifies receiver answers as docs/api.md says", () => {
    assert.equal(classify(200), "delivered");
    assert.equal(classify(204), "delivered");
    for (const status of [400, 404, 408, 429]) assert.equal(classify(status), "rejected");
    for (const status of [301, 302, 500, 503]) assert.equal(classify(status), "retry");
  });
});
