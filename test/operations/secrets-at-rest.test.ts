// Webhook signing secrets and two-factor secrets are sealed with SECRETS_KEY, and a new key is
// brought in by listing it first: every start seals again what an older key (or none) sealed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SecretBox } from "../../src/platform/crypto/secret-box.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { startTestService } from "../helpers/service.ts";

const k1 = Buffer.alloc(32, 11).toString("base64");
const k2 = Buffer.alloc(32, 22).toString("base64");

describe("secrets at rest", () => {
  it("are sealed, and a key rotation seals them again without losing one", async () => {
    const { db } = await createTestDatabase();
    const kept = { ...db, close: async () => {} };
    const first = await startTestService({ SECRETS_KEY: k1 }, { db: kept });
    const group = await first.createGroup();
    const stored = async () =>
      (
        await db.query<{ webhook_secret: string }>("SELECT webhook_secret FROM groups WHERE id = $1", [
          group.groupId,
        ])
      )[0]?.webhook_secret ?? "";
    assert.match(await stored(), /^sealed\.v1\./);
    assert.ok(!(await stored()).includes(group.webhookSecret.replace(/^whsec_/, "")));
    assert.equal(await first.services.merchants.webhookSecret(group.groupId), group.webhookSecret);
    // A secret written before sealing existed, in plain text.
    const legacy = await first.createGroup({ name: "From before" });
    await db.query("UPDATE groups SET webhook_secret = $2 WHERE id = $1", [
      legacy.groupId,
      legacy.webhookSecret,
    ]);
    await first.close();

    // The new key first, the old one after it: the start seals everything with the new one.
    const rotating = await startTestService({ SECRETS_KEY: `${k2},${k1}` }, { db: kept });
    const newBox = new SecretBox([Buffer.from(k2, "base64")]);
    const rows = await db.query<{ webhook_secret: string }>("SELECT webhook_secret FROM groups");
    assert.ok(
      rows.every((row) => newBox.isCurrent(row.webhook_secret)),
      "all sealed with the new key",
    );
    await rotating.close();

    // The old key can go.
    const after = await startTestService({ SECRETS_KEY: k2 }, { db });
    try {
      assert.equal(await after.services.merchants.webhookSecret(group.groupId), group.webhookSecret);
      assert.equal(await after.services.merchants.webhookSecret(legacy.groupId), legacy.webhookSecret);
    } finally {
      await after.close();
    }
  });

  it("refuses to start with PROCESSOR=stripe and no SECRETS_KEY", async () => {
    await assert.rejects(
      startTestService({ PROCESSOR: "stripe", STRIPE_WEBHOOK_SECRET: "whsec_x", SECRETS_KEY: "" }),
      /PROCESSOR=stripe needs SECRETS_KEY/,
    );
  });
});
