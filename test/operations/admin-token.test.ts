// How the service behaves for the people who run it: start-up failures that say what is
// wrong, an admin token that cannot be lost, credentials kept out of log streams, a clean drain.
import assert from "node:assert/strict";
import { chmod, lstat, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { migratedDataDir } from "../helpers/database.ts";
import { checkoutCli, occupiedPort, startProcess } from "../helpers/process.ts";

/** Uses an admin token once: a group made with it. */
const createGroupWith = (url: string, token: string, name: string) =>
  fetch(`${url}/admin/v1/groups`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });

describe("the admin token cannot be lost", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await migratedDataDir("checkout-token-");
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
    assert.equal((await createGroupWith(url, token as string, "Used")).status, 201);
    second.child.kill("SIGTERM");
    assert.equal(await second.exited, 0);

    const third = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN: "" });
    await third.started;
    assert.equal(tokenIn(third.output().stdout), undefined, "a used token is not shown again");
    third.child.kill("SIGTERM");
    await third.exited;

    const reset = await checkoutCli(["admin", "reset-token", "--json"], {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      ADMIN_TOKEN: "",
    });
    const fresh = JSON.parse(reset.stdout).adminToken as string;
    assert.match(fresh, /^adm_/);
    const pglite = await PGlite.create(join(dataDir, "pglite"));
    try {
      const audited = await pglite.query<{ actor: string; group_id: string | null }>(
        "SELECT actor, group_id FROM audit_log WHERE action = 'admin_token.reset'",
      );
      assert.deepEqual(audited.rows, [{ actor: `cli:${userInfo().username}`, group_id: null }]);
    } finally {
      await pglite.close();
    }
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
    const dir = await migratedDataDir("checkout-stripe-");
    try {
      const started = startProcess({
        DATA_DIR: dir,
        ADMIN_TOKEN: "",
        PROCESSOR: "stripe",
        SECRETS_KEY: Buffer.alloc(32, 2).toString("base64"),
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

/** Every path under `dir`, with its lstat. */
async function walk(dir: string): Promise<{ path: string; mode: number; isDirectory: boolean }[]> {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const stats = await lstat(path);
    found.push({ path, mode: stats.mode & 0o777, isDirectory: stats.isDirectory() });
    if (stats.isDirectory()) found.push(...(await walk(path)));
  }
  return found;
}

describe("DATA_DIR is the service's alone, and the database holds no secret in clear", () => {
  it("makes DATA_DIR 0700 and every file in it 0600, whoever made them; the token is only in its file", async () => {
    const dir = await migratedDataDir("checkout-private-");
    try {
      // As a careless set-up leaves it: everyone may read and write.
      await chmod(dir, 0o777);
      await writeFile(join(dir, "left-over"), "x", { mode: 0o666 });
      await chmod(join(dir, "left-over"), 0o666);
      const started = startProcess({
        DATA_DIR: dir,
        ADMIN_TOKEN: "",
        PROCESSOR: "stripe",
        SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
        STRIPE_SECRET_KEY: "sk_test_unused",
        STRIPE_WEBHOOK_SECRET: "whsec_unused",
      });
      const url = await started.started;
      const token = /ADMIN_TOKEN=(adm_\S+)/.exec(await readFile(join(dir, "admin-token"), "utf8"))?.[1] ?? "";
      assert.match(token, /^adm_/);
      // Used once: the database then holds nothing of it but the hash.
      assert.equal((await createGroupWith(url, token, "Private")).status, 201);
      started.child.kill("SIGTERM");
      assert.equal(await started.exited, 0);

      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      const entries = await walk(dir);
      assert.ok(entries.length > 1000, "the embedded database's files are there");
      const open = entries.filter((entry) =>
        entry.isDirectory ? entry.mode !== 0o700 : (entry.mode & 0o077) !== 0,
      );
      assert.deepEqual(
        open.map((entry) => `${entry.path} ${entry.mode.toString(8)}`),
        [],
        "no file or directory is open to other users",
      );
      const withToken = [];
      for (const entry of entries) {
        if (entry.isDirectory || entry.path.endsWith("admin-token") || entry.path.endsWith(".lock")) continue;
        if ((await readFile(entry.path)).includes(token)) withToken.push(entry.path);
      }
      assert.deepEqual(withToken, [], "the token is in no database file (the WAL included)");

      const pglite = await PGlite.create(join(dir, "pglite"));
      try {
        const settings = await pglite.query<{ name: string; value: string }>(
          "SELECT name, value FROM settings",
        );
        const sessionSecret = settings.rows.find((row) => row.name === "page_session_secret");
        assert.match(sessionSecret?.value ?? "", /^sealed\.v1\./, "the page session secret is sealed");
        assert.equal(
          settings.rows.find((row) => row.name === "admin_token_unclaimed"),
          undefined,
          "a used token leaves no unclaimed entry",
        );
      } finally {
        await pglite.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
