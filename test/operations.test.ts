// How the service behaves for the people who run it: start-up failures that say what is wrong,
// an admin token that cannot be lost, credentials kept out of log streams, and a clean drain.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { logLines, startProcess } from "./helpers/process.ts";

const run = promisify(execFile);

/** A port something else already holds. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

async function failsWith(env: Record<string, string>, message: RegExp) {
  const started = startProcess(env);
  assert.equal(await started.exited, 1);
  const { stderr } = started.output();
  assert.match(stderr, message);
  assert.equal(stderr.trim().split("\n").length, 1, `one line, got: ${stderr}`);
}

describe("start-up failures name what is wrong, in one line", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "checkout-ops-"));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it("bad settings", async () => {
    await failsWith(
      { DATA_DIR: dataDir, DATABASE_URL: "notaurl" },
      /DATABASE_URL is not valid.*postgres:\/\//,
    );
    await failsWith({ DATA_DIR: dataDir, DATABASE_URL: "mysql://u:secret@db/x" }, /DATABASE_URL .*mysql:/);
    await failsWith({ DATA_DIR: dataDir, LOG_LEVEL: "loud" }, /LOG_LEVEL="loud" .*one of fatal, error, warn/);
    await failsWith(
      {
        DATA_DIR: dataDir,
        PROCESSOR: "stripe",
        STRIPE_SECRET_KEY: "sk_x",
        STRIPE_WEBHOOK_SECRET: "whsec_x",
        CHECKOUT_TTL_SECONDS: "60",
      },
      /CHECKOUT_TTL_SECONDS="60" .*1800 to 86400 with PROCESSOR=stripe/,
    );
  });

  it("a taken port, named by the variable that chose it", async () => {
    const taken = await occupiedPort();
    try {
      await failsWith(
        { DATA_DIR: dataDir, PORT: String(taken.port), SANDBOX_PORT: "0" },
        new RegExp(`PORT=${taken.port} is already in use`),
      );
      await failsWith(
        { DATA_DIR: dataDir, PORT: "0", SANDBOX_PORT: String(taken.port) },
        new RegExp(`SANDBOX_PORT=${taken.port} is already in use`),
      );
    } finally {
      taken.server.close();
    }
  });

  it("PostgreSQL that never answers: a line per try, then a clear exit", async () => {
    const started = startProcess({
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/checkout",
      DATABASE_CONNECT_TIMEOUT_SECONDS: "2",
    });
    assert.equal(await started.exited, 1);
    const { stdout, stderr } = started.output();
    const tries = logLines(stdout).filter((line) => /PostgreSQL is not reachable yet/.test(String(line.msg)));
    assert.ok(tries.length >= 1, stdout);
    assert.match(stderr, /^checkout: the database is not reachable/);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
  });
});

describe("the admin token cannot be lost", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "checkout-token-"));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  const tokenIn = (stdout: string) => /Admin token .*: (adm_\S+)/.exec(stdout)?.[1];

  it("is shown again after a first start that failed, until it is used; reset-token replaces it", async () => {
    const taken = await occupiedPort();
    const failed = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: "", PORT: String(taken.port) });
    assert.equal(await failed.exited, 1);
    taken.server.close();

    const second = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: "" });
    const url = await second.started;
    const token = tokenIn(second.output().stdout);
    assert.ok(token, "the unused token is shown again");
    const groups = await fetch(`${url}/admin/v1/groups`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Used" }),
    });
    assert.equal(groups.status, 201);
    second.child.kill("SIGTERM");
    assert.equal(await second.exited, 0);

    const third = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: "" });
    await third.started;
    assert.equal(tokenIn(third.output().stdout), undefined, "a used token is not shown again");
    third.child.kill("SIGTERM");
    await third.exited;

    const reset = await run(process.execPath, ["bin/checkout.js", "admin", "reset-token", "--json"], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", ADMIN_TOKEN: "" },
    });
    const fresh = JSON.parse(reset.stdout).adminToken as string;
    assert.match(fresh, /^adm_/);
    const fourth = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: "" });
    const fourthUrl = await fourth.started;
    const as = (bearer: string) =>
      fetch(`${fourthUrl}/admin/v1/reconciliation`, { headers: { authorization: `Bearer ${bearer}` } });
    assert.equal((await as(token)).status, 401, "the old token is refused");
    assert.equal((await as(fresh)).status, 200);
    fourth.child.kill("SIGTERM");
    await fourth.exited;
  });

  it("outside the sandbox: no demo group, and the token only in a 0600 file whose path is logged", async () => {
    const dir = await mkdtemp(join(tmpdir(), "checkout-stripe-"));
    try {
      const started = startProcess({
        DATA_DIR: dir,
        ADMIN_TOKEN: "",
        PROCESSOR: "stripe",
        STRIPE_SECRET_KEY: "sk_test_unused",
        STRIPE_WEBHOOK_SECRET: "whsec_unused",
      });
      await started.started;
      const { stdout, stderr } = started.output();
      const path = join(dir, "admin-token");
      const file = await readFile(path, "utf8");
      const token = /ADMIN_TOKEN=(adm_\S+)/.exec(file)?.[1];
      assert.ok(token);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.ok(!stdout.includes(token) && !stderr.includes(token), "the token never reaches the log stream");
      assert.ok(stdout.includes(path), "its path is logged");
      assert.doesNotMatch(stdout, /Secret key:|sk_[A-Za-z0-9_-]{20}/, "no demo keys");
      started.child.kill("SIGTERM");
      await started.exited;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

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

    started.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ready = await fetch(`${url}/health/ready`);
    assert.equal(ready.status, 503, "readiness fails during the grace period");
    assert.equal((await fetch(`${url}/health/live`)).status, 200, "requests are still served");
    assert.equal(await started.exited, 0);

    const lines = logLines(started.output().stdout);
    const clientError = lines.find((line) => line.code === "PROCESSOR_ERROR");
    assert.ok(clientError);
    assert.equal(clientError.level, 30, "info, not error");
    assert.ok(!JSON.stringify(clientError).includes("stack"));
    const dropped = lines.find((line) => String(line.msg).startsWith("webhookUrl dropped"));
    assert.ok(dropped, "a dropped webhookUrl is explained");
    assert.match(String(dropped.msg), /ALLOWED_PRIVATE_HOSTS/);
    assert.equal(dropped.webhookHost, "localhost:9");
  });
});
