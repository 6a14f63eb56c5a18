// kill -9 while the processor is answering a create: the retry with the same Idempotency-Key
// must succeed with the same payment, and no record may be left pending.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openEmbeddedDatabase } from "../src/platform/db/embedded.ts";
import { createSandbox, type Sandbox } from "../src/sandbox/app.ts";
import { migratedDataDir } from "./helpers/database.ts";
import { startProcess } from "./helpers/process.ts";
import { waitFor } from "./helpers/wait.ts";

const ADMIN_TOKEN = "adm_crash_test_token_long_enough";
const WEBHOOK_SECRET = "whsec_crash_test";

/** Forwards to the sandbox, except that it can hold session creates until told otherwise. */
class HoldingProxy {
  holding = true;
  held = 0;
  private server: Server | undefined;
  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
      if (this.holding && incoming.method === "POST" && incoming.url === "/v1/checkout/sessions") {
        this.held += 1;
        return; // never answered: the service is killed while it waits
      }
      const upstream = httpRequest(
        `${this.target}${incoming.url}`,
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(upstream);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe("a crash while the processor answers a create", () => {
  let dataDir: string;
  let sandbox: Sandbox;
  let proxy: HoldingProxy;
  let processorUrl: string;
  before(async () => {
    dataDir = await migratedDataDir("checkout-crash-");
    sandbox = await createSandbox({
      emulators: [
        {
          name: "stripe",
          settings: { STRIPE_SECRET_KEY: "sk_test_crash", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
          eventsUrl: () => undefined,
        },
      ],
      logLevel: "silent",
    });
    await sandbox.app.listen({ port: 0, host: "127.0.0.1" });
    proxy = new HoldingProxy(`http://127.0.0.1:${(sandbox.app.server.address() as AddressInfo).port}`);
    processorUrl = await proxy.start();
  });
  after(async () => {
    await proxy.stop();
    await sandbox.app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = () => ({
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    PROCESSOR: "stripe",
    SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
    STRIPE_SECRET_KEY: "sk_test_crash",
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: processorUrl,
    IDEMPOTENCY_LEASE_SECONDS: "1",
  });

  it("the retry with the same key succeeds, and nothing is left pending", async () => {
    const first = startProcess(env());
    const firstUrl = await first.started;
    const group = await (
      await fetch(`${firstUrl}/admin/v1/groups`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Crash shop",
          safeSites: [{ name: "Main", url: "https://pay.crash.example" }],
        }),
      })
    ).json();
    const create = (url: string) =>
      fetch(`${url}/api/v1/payments/create`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-public-key": group.data.publicKey,
          "x-secret-key": group.data.secretKey,
          "idempotency-key": "order-crash-1",
        },
        body: JSON.stringify({
          amount: 4200,
          currency: "usd",
          customerEmail: "crash@example.com",
          successUrl: "https://shop.example.com/ok",
          cancelUrl: "https://shop.example.com/cart",
        }),
      });
    const inFlight = create(firstUrl).catch(() => undefined);
    await waitFor(async () => (proxy.held === 1 ? true : undefined));
    first.child.kill("SIGKILL");
    await first.exited;
    await inFlight;

    proxy.holding = false;
    const second = startProcess(env());
    const secondUrl = await second.started;
    await sleep(1100); // the dead request's lease runs out
    const retried = await create(secondUrl);
    const body = await retried.json();
    assert.equal(retried.status, 200, JSON.stringify(body));
    const again = await (await create(secondUrl)).json();
    assert.deepEqual(again, body, "further retries replay the same answer");
    const read = await (
      await fetch(`${secondUrl}/api/v1/payments/${body.data.transactionId}`, {
        headers: { "x-public-key": group.data.publicKey, "x-secret-key": group.data.secretKey },
      })
    ).json();
    assert.equal(read.data.status, "processing");
    second.child.kill("SIGTERM");
    assert.equal(await second.exited, 0);

    const db = await openEmbeddedDatabase(dataDir);
    try {
      const rows = await db.query<{ status: string }>("SELECT status FROM payments");
      assert.deepEqual(
        rows.map((row) => row.status),
        ["processing"],
        "one payment, and never a pending one",
      );
    } finally {
      await db.close();
    }
  });
});
