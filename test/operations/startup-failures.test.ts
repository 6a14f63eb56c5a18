// How the service behaves for the people who run it: start-up failures that say what is
// wrong, an admin token that cannot be lost, credentials kept out of log streams, a clean drain.
import assert from "node:assert/strict";
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { migratedDataDir } from "../helpers/database.ts";
import { logLines, occupiedNeighbours, occupiedPort, startProcess } from "../helpers/process.ts";

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
    dataDir = await migratedDataDir("checkout-ops-");
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
        SECRETS_KEY: Buffer.alloc(32, 4).toString("base64"),
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

  it("a taken PORT is named as PORT even when its neighbour, the sandbox's default, is taken too", async () => {
    const [taken, next] = await occupiedNeighbours();
    try {
      await failsWith(
        { DATA_DIR: dataDir, PORT: String(taken.port), SANDBOX_PORT: "" },
        new RegExp(`^checkout: PORT=${taken.port} is already in use`),
      );
    } finally {
      taken.server.close();
      next.server.close();
    }
    // PORT free, PORT + 1 taken. The freed port may be taken by another process before the
    // service binds it (CI once saw that): then the answer names PORT, and another pair is tried.
    for (let tries = 1; ; tries++) {
      const [free, busy] = await occupiedNeighbours();
      await new Promise((closed) => free.server.close(closed));
      const started = startProcess({ DATA_DIR: dataDir, PORT: String(free.port), SANDBOX_PORT: "" });
      const code = await started.exited.finally(() => busy.server.close());
      const { stderr } = started.output();
      if (tries < 5 && stderr.startsWith(`checkout: PORT=${free.port} is already in use`)) continue;
      assert.equal(code, 1);
      assert.match(
        stderr,
        new RegExp(
          `SANDBOX_PORT=${busy.port} \\(PORT \\+ 1, as SANDBOX_PORT is not set\\) is already in use`,
        ),
      );
      assert.equal(stderr.trim().split("\n").length, 1, `one line, got: ${stderr}`);
      return;
    }
  });

  it("secrets sealed with another key than the one given: one line naming SECRETS_KEY, and no useless key file", async () => {
    const dir = await migratedDataDir("checkout-wrong-key-");
    try {
      const first = startProcess({ DATA_DIR: dir, SECRETS_KEY: "" });
      await first.started;
      first.child.kill("SIGTERM");
      assert.equal(await first.exited, 0);
      const keyFile = join(dir, "secrets-key");
      await rm(keyFile);
      await failsWith(
        { DATA_DIR: dir, SECRETS_KEY: "" },
        /^checkout: the secrets stored in this database were sealed with another key \(key id [\w-]+\) than DATA_DIR\/secrets-key/,
      );
      await assert.rejects(stat(keyFile), "the key file made by the failed start is gone again");
      await failsWith(
        { DATA_DIR: dir, SECRETS_KEY: Buffer.alloc(32, 9).toString("base64") },
        /^checkout: the secrets stored in this database were sealed with another key .* than SECRETS_KEY gives/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
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
