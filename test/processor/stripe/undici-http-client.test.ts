import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import Stripe from "stripe";
import { ANSWER_LIMIT_BYTES, UndiciHttpClient } from "../../../src/processor/stripe/undici-http-client.ts";

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** The official SDK over the undici transport, against a local server that answers as told. */
describe("the Stripe SDK's undici transport", () => {
  let server: Server;
  let port: number;
  let seen: Seen[];
  /** How the server treats each request in turn; the last one repeats. */
  let answers: ((response: ServerResponse) => void)[];
  const session = (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "application/json", "request-id": "req_unit" });
    response.end(
      JSON.stringify({ id: "cs_unit", object: "checkout.session", url: "https://pay.example/cs_unit" }),
    );
  };
  const stall = () => {};
  const hangUp = (response: ServerResponse) => response.socket?.destroy();
  /** Headers, the start of the body, then nothing more. */
  const stallMidBody = (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"id":"cs_unit",');
  };
  const tooLong = (response: ServerResponse) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: "cs_unit", padding: "x".repeat(ANSWER_LIMIT_BYTES) }));
  };

  before(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        seen.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body });
        const answer = answers[Math.min(seen.length, answers.length) - 1] as (typeof answers)[number];
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen = [];
  });

  const stripe = (maxNetworkRetries: number) =>
    new Stripe("sk_test_unit", {
      httpClient: new UndiciHttpClient(1000),
      host: "127.0.0.1",
      port,
      protocol: "http",
      maxNetworkRetries,
      timeout: 200,
      telemetry: false,
    });
  const create = (client: Stripe) =>
    client.checkout.sessions.create(
      { mode: "payment", success_url: "https://shop.example/ok", customer_email: "a@example.com" },
      { idempotencyKey: "checkout-session-unit" },
    );
  /** The error a create ends with; the test fails if it succeeds. */
  const failureOf = (client: Stripe) =>
    create(client).then(
      () => assert.fail("the create should have failed"),
      (error: unknown) => error,
    );

  it("sends the SDK's request as it built it and hands back the parsed answer", async () => {
    answers = [session];
    const created = await create(stripe(0));
    assert.equal(created.id, "cs_unit");
    assert.equal(created.lastResponse.requestId, "req_unit");
    assert.equal(seen.length, 1);
    const [request] = seen as [Seen];
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/v1/checkout/sessions");
    assert.equal(request.headers.authorization, "Bearer sk_test_unit");
    assert.equal(request.headers["idempotency-key"], "checkout-session-unit");
    assert.equal(request.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(Number(request.headers["content-length"]), Buffer.byteLength(request.body));
    assert.equal(
      new URLSearchParams(request.body).get("customer_email"),
      "a@example.com",
      "the form body arrives whole",
    );
  });

  it("reports an answer that never comes as the SDK's timeout", async () => {
    answers = [stall];
    const failed = await failureOf(stripe(0));
    assert.ok(failed instanceof Stripe.errors.StripeConnectionError);
    assert.match(failed.message, /timeout being reached \(200ms\)/);
    assert.equal(seen.length, 1);
  });

  it("lets the SDK ask again with the same key after a timeout or a lost connection", async () => {
    for (const lost of [stall, hangUp, stallMidBody]) {
      seen = [];
      answers = [lost, session];
      const created = await create(stripe(2));
      assert.equal(created.id, "cs_unit");
      assert.equal(seen.length, 2, "asked twice: the first answer never came");
      assert.deepEqual(
        seen.map((request) => request.headers["idempotency-key"]),
        ["checkout-session-unit", "checkout-session-unit"],
      );
    }
  });

  it("gives up as a connection error once the retries are spent", async () => {
    answers = [hangUp];
    const failed = await failureOf(stripe(1));
    assert.ok(failed instanceof Stripe.errors.StripeConnectionError);
    assert.equal(seen.length, 2);
  });

  it("fails an answer past the length limit as a connection error, and reads one under it", async () => {
    answers = [tooLong];
    const failed = await failureOf(stripe(0));
    assert.ok(failed instanceof Stripe.errors.StripeConnectionError);
    answers = [session];
    seen = [];
    assert.equal((await create(stripe(0))).id, "cs_unit", "the agent still serves the next request");
  });
});
