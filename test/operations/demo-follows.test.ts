// The sandbox's demo group lives at the service's own address: after a restart on another
// PUBLIC_URL its SafeSite follows, so demo payment links never point at a dead port.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { describe, it } from "node:test";
import { migratedDataDir } from "../helpers/database.ts";
import { startProcess } from "../helpers/process.ts";

const ADMIN_TOKEN = "adm_demo_follows_public_url_test";

describe("the demo SafeSite", () => {
  it("follows PUBLIC_URL from one start to the next", async () => {
    const dataDir = await migratedDataDir("checkout-demo-");
    const first = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN, PUBLIC_URL: "http://localhost:4100" });
    await first.started;
    const groupId = /Demo group "[^"]*" created \(([0-9a-f-]{36})\)/.exec(first.output().stdout)?.[1];
    assert.ok(groupId);
    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0);

    const second = startProcess({ DATA_DIR: dataDir, ADMIN_TOKEN, PUBLIC_URL: "http://localhost:4200" });
    try {
      const url = await second.started;
      const group = (await (
        await fetch(`${url}/admin/v1/groups/${groupId}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json()) as { data: { safeSites: { name: string; url: string }[] } };
      assert.deepEqual(
        group.data.safeSites.map((site) => [site.name, site.url]),
        [["Default", "http://localhost:4200"]],
      );
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
