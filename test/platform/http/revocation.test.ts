import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createTestDatabase, NEEDS_POSTGRES, onPostgres, openTestPostgres } from "../../helpers/database.ts";
import { startTestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

describe("changes seen across instances", {
  skip: !onPostgres && NEEDS_POSTGRES,
}, () => {
  it("a key revoked through one instance stops working on another that had it cached", async () => {
    const fresh = await createTestDatabase();
    const first = await startTestService({}, { db: openTestPostgres(fresh.url as string) });
    const second = await startTestService({}, { db: openTestPostgres(fresh.url as string) });
    try {
      const group = await first.createGroup();
      // Both instances have now verified (and cached) the key.
      assert.equal((await first.api(group, "GET", "/api/v1/auth/test")).status, 200);
      assert.equal((await second.api(group, "GET", "/api/v1/auth/test")).status, 200);
      assert.equal((await first.admin("DELETE", `/admin/v1/keys/${group.publicKey}`)).status, 200);
      assert.equal(
        (await first.api(group, "GET", "/api/v1/auth/test")).status,
        401,
        "at once on the revoking instance",
      );
      // The other instance hears of it through NOTIFY, within milliseconds rather than the cache's lifetime.
      const started = Date.now();
      await waitFor(
        async () => ((await second.api(group, "GET", "/api/v1/auth/test")).status === 401 ? true : undefined),
        2000,
      );
      assert.ok(Date.now() - started < 2000);
    } finally {
      await first.close();
      await second.close();
      await fresh.db.close();
    }
  });

  it("a SafeSite change through one instance, or by SQL, reaches another's cache of active sites", async () => {
    const fresh = await createTestDatabase();
    const first = await startTestService({}, { db: openTestPostgres(fresh.url as string) });
    const second = await startTestService({}, { db: openTestPostgres(fresh.url as string) });
    try {
      const group = await first.createGroup({ safeSites: [{ name: "Old", url: "https://old.example.com" }] });
      const linkHost = async () => {
        const created = await second.createPayment(group);
        return created.status === 200 ? new URL(created.body.data.paymentUrl).host : created.body.error.code;
      };
      assert.equal(
        await linkHost(),
        "old.example.com",
        "the second instance has now cached the group's sites",
      );

      const added = await first.admin("POST", `/admin/v1/groups/${group.groupId}/safe-sites`, {
        name: "New",
        url: "https://new.example.com",
      });
      assert.equal(added.status, 201);
      const [old] = group.safeSites;
      assert.equal(
        (await first.admin("PATCH", `/admin/v1/safe-sites/${old?.id}`, { isActive: false })).status,
        200,
      );
      await waitFor(async () => ((await linkHost()) === "new.example.com" ? true : undefined), 2000);

      // An operator's SQL takes no service path; the table's trigger still tells every instance.
      await fresh.db.query("UPDATE safe_sites SET is_active = false WHERE group_id = $1", [group.groupId]);
      await waitFor(async () => ((await linkHost()) === "NO_ACTIVE_SAFESITE" ? true : undefined), 2000);
      await fresh.db.query("UPDATE safe_sites SET is_active = true WHERE name = 'Old' AND group_id = $1", [
        group.groupId,
      ]);
      await waitFor(async () => ((await linkHost()) === "old.example.com" ? true : undefined), 2000);
    } finally {
      await first.close();
      await second.close();
      await fresh.db.close();
    }
  });
});
