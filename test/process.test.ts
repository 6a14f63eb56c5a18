import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { migratedDataDir } from "./helpers/database.ts";
import { checkoutCli, startProcess } from "./helpers/process.ts";
import { waitFor } from "./helpers/wait.ts";

describe("the service as a process", () => {
  let dataDir: string;
  let service: ReturnType<typeof startProcess>;
  let url: string;
  let publicKey: string;
  let secretKey: string;
  let adminToken: string;
  let webhookSecret: string;

  before(async () => {
    dataDir = await migratedDataDir("checkout-process-");
    service = startProcess({ DATA_DIR: dataDir, LOG_LEVEL: "debug", ADMIN_TOKEN: "" }, { source: true });
    url = await service.started;
    const { stdout } = service.output();
    publicKey = /Public key: +(\S+)/.exec(stdout)?.[1] ?? "";
    secretKey = /Secret key: +(\S+)/.exec(stdout)?.[1] ?? "";
    adminToken = /Admin token .*: (\S+)/.exec(stdout)?.[1] ?? "";
    webhookSecret = /Webhook secret: +(\S+)/.exec(stdout)?.[1] ?? "";
  });
  after(async () => {
    service.child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  });

  it("prints a demo group, its keys, the admin token and a curl command on first start", async () => {
    assert.match(publicKey, /^pk_/);
    assert.match(secretKey, /^sk_/);
    assert.match(adminToken, /^adm_/);
    assert.match(webhookSecret, /^whsec_/);
    assert.match(service.output().stdout, /curl -s -X POST .*\/api\/v1\/payments\/create/);
    const response = await fetch(`${url}/api/v1/auth/test`, {
      headers: { "x-public-key": publicKey, "x-secret-key": secretKey },
    });
    assert.equal(response.status, 200);
  });

  it("prints one line to paste, with the keys, the admin token and the port, and one host name throughout", () => {
    const { stdout } = service.output();
    const exported = /^ {2}export (.+)$/m.exec(stdout)?.[1] ?? "";
    const values = Object.fromEntries(exported.split(" ").map((pair) => pair.split("=") as [string, string]));
    const port = new URL(url).port;
    assert.deepEqual(values, {
      PORT: port,
      CHECKOUT_URL: `http://localhost:${port}`,
      PUBLIC_KEY: publicKey,
      SECRET_KEY: secretKey,
      ADMIN_TOKEN: adminToken,
    });
    // The banner's lines: the rest of stdout is the JSON log.
    const banner = stdout
      .split("\n")
      .filter((line) => !line.startsWith("{"))
      .join("\n");
    assert.doesNotMatch(banner, /127\.0\.0\.1/, "localhost, as PUBLIC_URL and the README say it");
    assert.match(stdout, /ALLOWED_PRIVATE_HOSTS=localhost:4242 npm start/);
  });

  it("in-process commands on the running service's embedded database say in one line what to do", async () => {
    for (const args of [["admin", "reset-token"], ["migrate"]]) {
      const failure = await checkoutCli(args, { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" }).then(
        () => assert.fail(`${args.join(" ")} ran beside the service`),
        (error: { stderr: string }) => error,
      );
      const lines = failure.stderr.trim().split("\n");
      assert.equal(lines.length, 1, failure.stderr);
      assert.match(
        lines[0] ?? "",
        /^checkout: the embedded database in .+ is in use by process \d+; stop it first/,
      );
    }
  });

  it("refuses a second process on the same embedded data directory with a clear error", async () => {
    const second = startProcess({ DATA_DIR: dataDir });
    const code = await second.exited;
    assert.equal(code, 1);
    assert.match(second.output().stderr, /in use by process \d+/);
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200, "the first process is unharmed");
  });

  it("the checkout CLI drives the admin API", async () => {
    const cli = (...args: string[]) => checkoutCli([...args, "--url", url, "--token", adminToken, "--json"]);
    const created = JSON.parse(
      (await cli("groups", "create", "--name", "CLI shop", "--site", "Main=https://pay.cli.example")).stdout,
    );
    assert.equal(created.groupName, "CLI shop");
    assert.match(created.secretKey, /^sk_/);
    const site = JSON.parse(
      (
        await cli(
          "safe-sites",
          "add",
          created.groupId,
          "--name",
          "Second",
          "--site-url",
          "https://pay2.cli.example",
        )
      ).stdout,
    );
    await cli("safe-sites", "update", site.id, "--active", "false");
    const group = JSON.parse((await cli("groups", "get", created.groupId)).stdout);
    assert.deepEqual(
      group.safeSites.map((s: { name: string; isActive: boolean }) => [s.name, s.isActive]),
      [
        ["Main", true],
        ["Second", false],
      ],
    );
    const routed = JSON.parse(
      (await cli("groups", "routing", created.groupId, "--set", "USD:stripe; stripe")).stdout,
    );
    assert.deepEqual(routed.routes, [
      { currency: "usd", processors: ["stripe"] },
      { processors: ["stripe"] },
    ]);
    assert.deepEqual(
      JSON.parse((await cli("groups", "routing", created.groupId)).stdout).routes,
      routed.routes,
    );
    const people = (...args: string[]) => checkoutCli([...args, "--url", url, "--token", adminToken]);
    const cleared = (await people("groups", "routing", created.groupId, "--set", "")).stdout;
    assert.match(cleared, /^Routes\s+the default route: stripe, square \(PROCESSOR's order\)$/m);
    const keys = JSON.parse((await cli("keys", "create", created.groupId)).stdout);
    await cli("keys", "revoke", keys.publicKey);
    assert.deepEqual(JSON.parse((await cli("reconciliation")).stdout), []);
    const reconciled = JSON.parse(
      (await cli("reconcile", "--since", new Date(Date.now() - 3_600_000).toISOString())).stdout,
    );
    assert.equal(reconciled.status, "finished");
    assert.deepEqual([reconciled.repaired, reconciled.drifts], [0, 0]);
    assert.equal(typeof reconciled.checked, "number");
    const recovered = JSON.parse(
      (await cli("deliveries", "recover", "--since", "2026-01-01T00:00:00Z")).stdout,
    );
    assert.equal(typeof recovered.queued, "number");
    const user = JSON.parse(
      (
        await cli(
          "users",
          "add",
          "--group",
          created.groupId,
          "--email",
          "owner@cli.example",
          "--role",
          "owner",
        )
      ).stdout,
    );
    assert.equal(user.role, "owner");
    const reset = JSON.parse((await cli("users", "reset-password", "owner@cli.example")).stdout);
    assert.match(reset.resetUrl, /\/dashboard\/reset\/[A-Za-z0-9_-]{43}$/);
    assert.match(user.inviteUrl, /\/dashboard\/invite\/[A-Za-z0-9_-]+$/);
    // Without --json: an answer as aligned facts, the invite URL on a line of its own; a list as a table.
    const operator = await checkoutCli([
      "operators",
      "add",
      "ops@cli.example",
      "--url",
      url,
      "--token",
      adminToken,
    ]);
    assert.match(operator.stdout, /^Invite URL\s+http:\/\/\S+\/operator\/invite\/[A-Za-z0-9_-]+$/m);
    const groupsTable = (
      await checkoutCli(["groups", "list", "--url", url, "--token", adminToken])
    ).stdout.split("\n");
    assert.match(groupsTable[0] ?? "", /^GROUP ID\s+GROUP NAME\s+ACTIVE SAFE SITES\s+CREATED AT$/);
    assert.ok(
      groupsTable.some((line) => line.startsWith(created.groupId) && / UTC$/.test(line)),
      groupsTable.join("\n"),
    );

    // A merchant action: refund a paid payment with the demo group's keys.
    const merchant = {
      "x-public-key": publicKey,
      "x-secret-key": secretKey,
      "content-type": "application/json",
    };
    const payment = (
      await (
        await fetch(`${url}/api/v1/payments/create`, {
          method: "POST",
          headers: merchant,
          body: JSON.stringify({
            amount: 900,
            currency: "usd",
            customerEmail: "cli@example.com",
            successUrl: "https://shop.example.com/ok",
            cancelUrl: "https://shop.example.com/no",
          }),
        })
      ).json()
    ).data;
    const sandboxUrl = /"sandbox":"(http:\/\/[^"]+)"/.exec(service.output().stdout)?.[1];
    await fetch(`${sandboxUrl}/sandbox/sessions/${payment.sessionId}/complete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ outcome: "succeeded" }),
    });
    await waitFor(async () => {
      const read = await (
        await fetch(`${url}/api/v1/payments/${payment.transactionId}`, { headers: merchant })
      ).json();
      return read.data.status === "succeeded" ? true : undefined;
    });
    const refunded = await checkoutCli([
      "payments",
      "refund",
      payment.transactionId,
      "--amount",
      "250",
      "--url",
      url,
      "--public-key",
      publicKey,
      "--secret-key",
      secretKey,
      "--json",
    ]);
    assert.deepEqual(
      [JSON.parse(refunded.stdout).amount, JSON.parse(refunded.stdout).status],
      [250, "succeeded"],
    );
    // The merchant erases the customer: said in words, then the payment has no e-mail.
    const merchantFlags = ["--url", url, "--public-key", publicKey, "--secret-key", secretKey];
    const erased = await checkoutCli(["customers", "erase", "CLI@example.com", ...merchantFlags]);
    assert.match(erased.stdout, /^Erased the customer from 1 payment\. /);
    const afterErasure = JSON.parse(
      (await checkoutCli(["payments", "get", payment.transactionId, ...merchantFlags, "--json"])).stdout,
    );
    assert.equal(afterErasure.customerEmail, undefined);
    assert.match(afterErasure.erasedAt, /Z$/);
    assert.match(
      (await checkoutCli(["customers", "erase", "cli@example.com", ...merchantFlags])).stdout,
      /^No payment of yours/,
    );
    await assert.rejects(
      checkoutCli(["groups", "get", created.groupId, "--url", url, "--token", "wrong"]),
      /UNAUTHORIZED/,
    );
  });

  it("finishes an in-flight request on SIGTERM, exits 0, and never logged a secret", async () => {
    const body = JSON.stringify({
      amount: 500,
      currency: "usd",
      customerEmail: "late@example.com",
      successUrl: "https://shop.example.com/ok",
      cancelUrl: "https://shop.example.com/no",
    });
    const { port } = new URL(url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    // Headers and half the body now, the rest after SIGTERM: the request is in flight when it arrives.
    socket.write(
      `POST /api/v1/payments/create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `X-Public-Key: ${publicKey}\r\nX-Secret-Key: ${secretKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    service.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write(body.slice(20));
    await closed;
    assert.match(answer, /^HTTP\/1.1 200/);
    assert.match(answer, /"transactionId"/);
    assert.equal(await service.exited, 0);

    const { stdout, stderr } = service.output();
    const logLines = stdout.split("\n").filter((line) => line.startsWith("{"));
    assert.ok(logLines.length > 5, "debug logs were written");
    for (const secret of [secretKey, adminToken, webhookSecret]) {
      assert.ok(!logLines.some((line) => line.includes(secret)), "a secret reached the log");
      assert.ok(!stderr.includes(secret));
    }
    assert.ok(
      logLines.some((line) => line.includes('"reqId"')),
      "requests carry ids",
    );
  });
});

describe("checkout migrate", () => {
  it("applies migrations to an embedded database and reports it up to date next time", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "checkout-migrate-"));
    try {
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" };
      const first = await checkoutCli(["migrate", "--json"], env);
      const every = (await readdir("src/platform/db/migrations"))
        .filter((file) => file.endsWith(".sql"))
        .sort();
      assert.ok(every.includes("001_initial.sql"));
      assert.deepEqual(JSON.parse(first.stdout).applied, every);
      const second = await checkoutCli(["migrate", "--json"], env);
      assert.deepEqual(JSON.parse(second.stdout).applied, []);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
