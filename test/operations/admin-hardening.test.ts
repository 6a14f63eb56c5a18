// The admin API: a failure budget per address, and every change it makes audited in its
// transaction, with the actor `admin-token`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADMIN_TOKEN, startTestService, type TestService } from "../helpers/service.ts";

describe("the admin API", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ AUTH_FAILURES_PER_MINUTE: "30" });
  });
  after(() => service.close());

  const entries = async (action: string) =>
    service.services.db.query<{
      actor: string;
      target: string | null;
      group_id: string | null;
      address: string;
    }>("SELECT actor, target, group_id, address FROM audit_log WHERE action = $1 ORDER BY id", [action]);

  it("audits every change it makes, as admin-token", async () => {
    const group = await service.createGroup({
      name: "Audited",
      safeSites: [{ name: "Main", url: "https://pay.audited.example" }],
    });
    const [created] = await entries("group.created");
    assert.deepEqual([created?.actor, created?.group_id], ["admin-token", group.groupId]);
    const key = (await service.admin("POST", `/admin/v1/groups/${group.groupId}/keys`)).body.data;
    assert.equal((await service.admin("DELETE", `/admin/v1/keys/${key.publicKey}`)).status, 200);
    const site = (
      await service.admin("POST", `/admin/v1/groups/${group.groupId}/safe-sites`, {
        name: "Second",
        url: "https://pay2.audited.example",
      })
    ).body.data;
    assert.equal(
      (await service.admin("PATCH", `/admin/v1/safe-sites/${site.id}`, { isActive: false })).status,
      200,
    );
    assert.equal(
      (await service.admin("POST", `/admin/v1/groups/${group.groupId}/webhook-secret/rotate`, {})).status,
      200,
    );
    assert.equal(
      (await service.admin("POST", "/admin/v1/deliveries/recover", { since: "2026-01-01T00:00:00Z" })).status,
      202,
    );
    for (const [action, target] of [
      ["api_key.created", key.publicKey],
      ["api_key.revoked", key.publicKey],
      ["safe_site.added", "https://pay2.audited.example"],
      ["safe_site.updated", "https://pay2.audited.example"],
      ["webhook_secret.rotated", null],
      ["webhooks.recovered", null],
    ] as const) {
      const rows = await entries(action);
      assert.equal(rows.length, 1, action);
      assert.deepEqual([rows[0]?.actor, rows[0]?.target], ["admin-token", target], action);
    }
    // A refused change writes nothing.
    assert.equal((await service.admin("DELETE", `/admin/v1/keys/${key.publicKey}`)).status, 404);
    assert.equal((await entries("api_key.revoked")).length, 1);
  });

  it("refuses an address after 30 wrong tokens in a minute, even with the right one", async () => {
    const wrong = await Promise.all(
      Array.from({ length: 30 }, () =>
        service.request("GET", "/admin/v1/reconciliation", {
          headers: { authorization: "Bearer adm_wrong_guess" },
        }),
      ),
    );
    assert.ok(wrong.every((answer) => answer.status === 401));
    const thirtyFirst = await service.request("GET", "/admin/v1/reconciliation", {
      headers: { authorization: "Bearer adm_wrong_again" },
    });
    assert.equal(thirtyFirst.status, 429);
    assert.equal(thirtyFirst.body.error.code, "RATE_LIMIT_EXCEEDED");
    const right = await service.request("GET", "/admin/v1/reconciliation", {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(right.status, 429, "no more guesses from this address for a minute");
  });
});
