// No customer e-mail or name in any log line, at any level, in any encoding (docs/security.md,
// "Erasure"): a whole payment life, searched for on the dashboard, then erased, at LOG_LEVEL=debug.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startProcess } from "../helpers/process.ts";
import { Receiver } from "../helpers/receiver.ts";
import { smtpListener } from "../helpers/smtp.ts";
import { waitFor } from "../helpers/wait.ts";

const EMAIL = "Zelda.Quartermain+shop@Example.ORG";
const NAME = "Zelda Quartermain";

/** Every way a log line could carry a text: as it is, any case, URL- or form-encoded, JSON-escaped. */
const encodings = (text: string) => {
  const forms = [text, encodeURIComponent(text), encodeURIComponent(text).replaceAll("%20", "+")];
  return [...forms, ...forms.map((form) => JSON.stringify(form).slice(1, -1))].map((form) =>
    form.toLowerCase(),
  );
};

describe("customer data never reaches the log", () => {
  let dataDir: string;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "checkout-pii-logs-"));
    receiver = new Receiver({ "/hook": () => 200 });
    await receiver.start();
    smtp = await smtpListener();
  });
  after(async () => {
    await receiver.stop();
    await smtp.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("create, pay, refund, webhook, receipt, dashboard search and erasure at LOG_LEVEL=debug log neither e-mail nor name", async () => {
    const service = startProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
      SMTP_URL: smtp.url,
      ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host,
      WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05",
    });
    try {
      const url = await service.started;
      const { stdout } = service.output();
      const keys = {
        "x-public-key": /Public key: +(\S+)/.exec(stdout)?.[1] ?? "",
        "x-secret-key": /Secret key: +(\S+)/.exec(stdout)?.[1] ?? "",
        "content-type": "application/json",
      };
      const sandboxUrl = /"sandbox":"(http:\/\/[^"]+)"/.exec(stdout)?.[1];
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: keys,
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return {
          status: response.status,
          body: (await response.json()) as { data: Record<string, unknown> },
        };
      };
      assert.equal((await call("PUT", "/api/v1/branding", { receipts: true })).status, 200);
      const created = (
        await call("POST", "/api/v1/payments/create", {
          amount: 2400,
          currency: "usd",
          customerEmail: EMAIL,
          customerName: NAME,
          successUrl: "https://shop.example.com/ok",
          cancelUrl: "https://shop.example.com/no",
          webhookUrl: `${receiver.url}/hook`,
        })
      ).body.data;
      await fetch(`${sandboxUrl}/sandbox/sessions/${created.sessionId}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ outcome: "succeeded" }),
      });
      await waitFor(async () =>
        (await call("GET", `/api/v1/payments/${created.transactionId}`)).body.data.status === "succeeded"
          ? true
          : undefined,
      );
      assert.equal(
        (await call("POST", `/api/v1/payments/${created.transactionId}/refunds`, { amount: 400 })).status,
        201,
      );
      await waitFor(async () => (receiver.at("/hook").length >= 2 ? true : undefined));
      await waitFor(async () => (smtp.messages.length >= 2 ? true : undefined));
      // A search by the address, as the dashboard's search box sends it (signed in or not, the URL is logged).
      await fetch(`${url}/dashboard/payments?q=${encodeURIComponent(EMAIL)}`, { redirect: "manual" });
      assert.equal((await call("POST", "/api/v1/customers/erase", { email: EMAIL })).status, 200);

      const lines = service.output().stdout.split("\n").concat(service.output().stderr.split("\n"));
      const logLines = lines.filter((line) => line.startsWith("{"));
      assert.ok(
        logLines.some((line) => line.includes("/dashboard/payments?q=[redacted]")),
        "the search was logged, without its term",
      );
      for (const needle of [...encodings(EMAIL), ...encodings(NAME)]) {
        const leaking = lines.filter((line) => line.toLowerCase().includes(needle));
        assert.deepEqual(leaking, [], `a log line holds ${needle}`);
      }
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  });
});
