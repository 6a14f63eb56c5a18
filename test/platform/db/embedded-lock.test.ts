import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DataDirLockedError, openEmbeddedDatabase } from "../../../src/platform/db/embedded.ts";
import { migratedDataDir } from "../../helpers/database.ts";

describe("the embedded database's lock", () => {
  let dataDir: string;
  before(async () => {
    dataDir = await migratedDataDir("checkout-lock-");
  });
  after(() => rm(dataDir, { recursive: true, force: true }));
  const lockPath = () => join(dataDir, ".checkout.lock");

  it("refuses a second opener while the first holds it, naming the holder", async () => {
    const db = await openEmbeddedDatabase(dataDir);
    try {
      await assert.rejects(openEmbeddedDatabase(dataDir), (error: unknown) => {
        assert.ok(error instanceof DataDirLockedError);
        assert.match(error.message, new RegExp(`in use by process ${process.pid}`));
        return true;
      });
    } finally {
      await db.close();
    }
    // Released on close: the next opener gets it.
    const again = await openEmbeddedDatabase(dataDir);
    await again.close();
  });

  it("is free again after its holder was killed with SIGKILL (no pid compared, so pid 1 restarts too)", async () => {
    const holder = spawn(process.execPath, [
      "-e",
      `require("node:net").createServer().listen(${JSON.stringify(lockPath())}, () => console.log("held"))`,
    ]);
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    assert.ok((await stat(lockPath())).isSocket());
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    const db = await openEmbeddedDatabase(dataDir);
    await db.close();
  });

  it("takes over a leftover that is not a live socket", async () => {
    await writeFile(lockPath(), String(process.pid));
    const db = await openEmbeddedDatabase(dataDir);
    await db.close();
  });
});
