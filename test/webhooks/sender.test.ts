import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { WebhookSender } from "../../src/webhooks/sender.ts";

/** Answers as each path says; loopback only. */
function receiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url === "/trickle") {
        // Headers at once, then a byte every 50 ms for two seconds: the body outlasts the deadline.
        response.writeHead(200, { "content-type": "text/plain" });
        let sent = 0;
        const drip = setInterval(() => {
          if (response.destroyed || sent++ >= 40) {
            clearInterval(drip);
            response.end();
            return;
          }
          response.write("x");
        }, 50);
        return;
      }
      if (request.url === "/large") {
        response.writeHead(201, { "content-type": "text/plain" });
        response.end(Buffer.alloc(1024 * 1024, 97));
        return;
      }
      response.writeHead(204);
      response.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe("the webhook sender's exchange", () => {
  let target: { server: Server; url: string };
  const sender = new WebhookSender({ timeoutMs: 300, allowedPrivateHosts: ["127.0.0.1"] });
  const sendTo = (path: string) =>
    sender.send(`${target.url}${path}`, { "content-type": "application/json" }, "{}");
  const outcomeOf = async (path: string) => {
    const { outcome, statusCode } = await sendTo(path);
    return { outcome, statusCode };
  };
  before(async () => {
    target = await receiver();
  });
  after(async () => {
    await sender.close();
    target.server.closeAllConnections();
    await new Promise((resolve) => target.server.close(resolve));
  });

  it("a 2xx without a body delivers", async () => {
    assert.deepEqual(await outcomeOf("/ok"), { outcome: "delivered", statusCode: 204 });
  });

  it("headers in time but a body that outlasts the timeout: the whole exchange counts, so it times out", async () => {
    const result = await sendTo("/trickle");
    assert.equal(result.outcome, "retry");
    assert.equal(result.statusCode, null);
    assert.match(result.error ?? "", /timeout after 300 ms/);
    assert.ok(result.durationMs >= 250 && result.durationMs < 1000, `duration ${result.durationMs}`);
  });

  it("an answer past the read limit: its status counts, the rest is not read", async () => {
    assert.deepEqual(await outcomeOf("/large"), { outcome: "delivered", statusCode: 201 });
  });

  it("the next exchange after those still goes through", async () => {
    const result = await sendTo("/ok");
    assert.equal(result.outcome, "delivered");
  });
});
