import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { postgresDatabase } from "../../src/db/database.ts";
import { createTestDatabase, onPostgres } from "../helpers/database.ts";
import { startTestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

describe("key revocation across instances", {
  skip: !onPostgres && "needs TEST_DATABASE_URL (runs in .ci/run)",
}, () => {
  it("a key revoked through one instance stops working on another that had it cached", async () => {
    const fresh = await createTestDatabase();
    const first = await startTestService({}, { db: postgresDatabase(fresh.url as string) });
    const second = await startTestService({}, { db: postgresDatabase(fresh.url as string) });
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
});
