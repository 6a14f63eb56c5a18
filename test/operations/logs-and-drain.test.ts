// How the service behaves for the people who run it: start-up failures that say what is
// wrong, an admin token that cannot be lost, credentials kept out of log streams, a clean drain.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { logLines, startProcess } from "../helpers/process.ts";

describe("logs and shutdown", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "checkout-drain-"));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it("says what start-up does, logs client errors without stacks, and fails readiness at once on SIGTERM", async () => {
    const started = startProcess({ DATA_DIR: dataDir, SHUTDOWN_GRACE_SECONDS: "1.5", LOG_LEVEL: "info" });
    const url = await started.started;
    const { stdout } = started.output();
    const keys = {
      "x-public-key": /Public key: +(\S+)/.exec(stdout)?.[1] ?? "",
      "x-secret-key": /Secret key: +(\S+)/.exec(stdout)?.[1] ?? "",
    };
    const messages = logLines(stdout).map((line) => String(line.msg));
    assert.ok(messages.some((msg) => msg.startsWith("opening the embedded database")));
    assert.ok(messages.some((msg) => msg.startsWith("applied migration 001_initial.sql")));

    const noEmail = await fetch(`${url}/api/v1/payments/create`, {
      method: "POST",
      headers: { ...keys, "content-type": "application/json" },
      body: JSON.stringify({
        amount: 100,
        currency: "usd",
        successUrl: "https://shop.example.com/ok",
        cancelUrl: "https://shop.example.com/no",
        webhookUrl: "http://localhost:9/hook",
      }),
    });
    assert.equal(noEmail.status, 502);
    const created = await fetch(`${url}/api/v1/payments/create`, {
      method: "POST",
      headers: { ...keys, "content-type": "application/json" },
      body: JSON.stringify({
        amount: 100,
        currency: "usd",
        customerEmail: "a@example.com",
        successUrl: "https://shop.example.com/ok",
        cancelUrl: "https://shop.example.com/no",
        webhookUrl: "http://localhost:9/hook",
      }),
    });
    assert.equal(created.status, 200);
    const { paymentUrl } = ((await created.json()) as { data: { paymentUrl: string } }).data;
    const token = paymentUrl.split("/pay/")[1] ?? "";
    // The demo SafeSite is PUBLIC_URL (port 0 here): the path is asked of the process itself.
    assert.equal((await fetch(`${url}${new URL(paymentUrl).pathname}`, { redirect: "manual" })).status, 303);

    // An invite link is as good as a password until it is used: its token is never logged either.
    const adminToken = /Admin token[^:]*: +(\S+)/.exec(stdout)?.[1] ?? "";
    const groupId = /Demo group "[^"]*" created \(([0-9a-f-]{36})\)/.exec(stdout)?.[1] ?? "";
    const invite = await fetch(`${url}/admin/v1/groups/${groupId}/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@example.com", role: "owner" }),
    });
    assert.equal(invite.status, 201);
    const inviteUrl = ((await invite.json()) as { data: { inviteUrl: string } }).data.inviteUrl;
    const inviteToken = inviteUrl.split("/invite/")[1] ?? "";
    assert.equal((await fetch(`${url}${new URL(inviteUrl).pathname}`)).status, 200);

    started.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ready = await fetch(`${url}/health/ready`);
    assert.equal(ready.status, 503, "readiness fails during the grace period");
    assert.equal((await fetch(`${url}/health/live`)).status, 200, "requests are still served");
    assert.equal(await started.exited, 0);

    assert.ok(token.length > 20 && !started.output().stdout.includes(token), "link tokens are never logged");
    assert.ok(inviteToken.length > 20 && !started.output().stdout.includes(inviteToken), "nor invite tokens");
    const lines = logLines(started.output().stdout);
    const clientError = lines.find((line) => line.code === "PROCESSOR_ERROR");
    assert.ok(clientError);
    assert.equal(clientError.level, 30, "info, not error");
    assert.ok(!JSON.stringify(clientError).includes("stack"));
    const dropped = lines.find((line) => String(line.msg).startsWith("webhookUrl dropped"));
    assert.ok(dropped, "a dropped webhookUrl is explained");
    assert.match(String(dropped.msg), /ALLOWED_PRIVATE_HOSTS/);
    assert.equal(dropped.webhookHost, "localhost:9");
    assert.equal(dropped.level, 40, "warn: the merchant expects webhooks and gets none");
    // Probes are debug: at info, the log carries none of their request lines.
    assert.ok(
      !lines.some((line) =>
        String((line.req as { url?: string } | undefined)?.url ?? "").startsWith("/health"),
      ),
      "no /health request lines at info",
    );
  });
});
