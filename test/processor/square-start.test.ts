// A wrong Square token or location stops the start; one Square refuses only after the start has gone
// on keeps Square out of every route and leaves the service running.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { ConfigError } from "../../src/config/values.ts";
import { makeProcessors } from "../../src/server/processors.ts";

/** Square's location endpoint, refusing the token after `delayMs`. */
async function refusingSquare(
  delayMs: number,
): Promise<{ server: Server; url: string; asked: () => number }> {
  let asked = 0;
  const server = createServer((_request, response) => {
    asked++;
    setTimeout(() => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ errors: [{ category: "AUTHENTICATION_ERROR", code: "UNAUTHORIZED" }] }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, asked: () => asked };
}

const squareConfig = (apiUrl: string) =>
  loadConfig({
    PROCESSOR: "square",
    SQUARE_ACCESS_TOKEN: "EAAA_wrong",
    SQUARE_LOCATION_ID: "L1",
    SQUARE_WEBHOOK_SIGNATURE_KEY: "key",
    SQUARE_API_URL: apiUrl,
    PUBLIC_URL: "https://pay.example.com",
    SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
  });

describe("Square's settings at start", () => {
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });
  const errors: string[] = [];
  const log = { warn: () => {}, error: (_fields: unknown, message: string) => errors.push(message) } as never;

  it("a refusal while the start waits stops it with one line naming PROCESSOR", async () => {
    const square = await refusingSquare(0);
    servers.push(square.server);
    await assert.rejects(
      makeProcessors(squareConfig(square.url), log, undefined, 2000),
      (error: Error) =>
        error instanceof ConfigError && /^PROCESSOR=square: Square refused/.test(error.message),
    );
  });

  it("a refusal after the start went on is logged, Square takes no currency, and nothing is left unhandled", async () => {
    const square = await refusingSquare(300);
    servers.push(square.server);
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      const [adapter] = await makeProcessors(squareConfig(square.url), log, undefined, 50);
      assert.ok(adapter, "the start went on with Square");
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal(square.asked(), 1);
      assert.deepEqual(errors, ["Square refused its settings: no payment is routed to Square"]);
      assert.equal(adapter.takes("usd"), false);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});
