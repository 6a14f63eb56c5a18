// Every change is audited in its own transaction with its group: the merchant API's
// refunds, cancels, resends and recoveries; the admin API's revocations, SafeSite changes and
// reconciliation runs; each on the log of the group it changed, or the operator's when it spans groups.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

interface Entry {
  group_id: string | null;
  actor: string;
  action: string;
  target: string | null;
}

describe("a complete audit trail", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Audited" });
  });
  after(() => service.close());

  const entries = (action: string, target: string) =>
    service.services.db.query<Entry>(
      "SELECT group_id, actor, action, target FROM audit_log WHERE action = $1 AND target = $2 ORDER BY id",
      [action, target],
    );
  const paidPayment = async () => {
    const created = (await service.createPayment(group)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () => {
      const payment = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body
        .data;
      return payment.status === "succeeded" ? payment : undefined;
    });
    return created.transactionId as string;
  };
  const byKey = { group_id: "", actor: "" };
  before(() => {
    byKey.group_id = group.groupId;
    byKey.actor = `api_key:${group.publicKey}`;
  });

  it("audits the merchant API's refunds and cancels with the key and the group, and not a replay", async () => {
    const transactionId = await paidPayment();
    const refund = () =>
      service.api(
        group,
        "POST",
        `/api/v1/payments/${transactionId}/refunds`,
        { amount: 100 },
        {
          "idempotency-key": "audited-refund",
        },
      );
    assert.equal((await refund()).status, 201);
    assert.equal((await refund()).headers.get("idempotent-replayed"), "true", "a replay");
    assert.deepEqual(await entries("payment.refunded", transactionId), [
      { ...byKey, action: "payment.refunded", target: transactionId },
    ]);

    const open = (await service.createPayment(group)).body.data.transactionId as string;
    assert.equal((await service.api(group, "DELETE", `/api/v1/payments/${open}`)).status, 200);
    assert.equal((await service.api(group, "DELETE", `/api/v1/payments/${open}`)).status, 400);
    assert.deepEqual(await entries("payment.cancelled", open), [
      { ...byKey, action: "payment.cancelled", target: open },
    ]);
  });

  it("audits the merchant API's resends and recoveries", async () => {
    const transactionId = await paidPayment();
    const events = (await service.api(group, "GET", `/api/v1/payments/${transactionId}/events`)).body.data;
    const eventId = events[0].eventId as string;
    // No webhookUrl: a resend is refused and audits nothing.
    const refused = await service.api(
      group,
      "POST",
      `/api/v1/payments/${transactionId}/events/${eventId}/resend`,
    );
    assert.equal(refused.status, 400);
    assert.deepEqual(await entries("webhook.resent", eventId), []);
    const recovered = await service.api(group, "POST", "/api/v1/events/recover", {
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    assert.equal(recovered.status, 202);
    const [row] = await service.services.db.query<Entry>(
      "SELECT group_id, actor, action, target FROM audit_log WHERE action = 'webhooks.recovered' AND actor = $1",
      [byKey.actor],
    );
    assert.deepEqual(row, { ...byKey, action: "webhooks.recovered", target: null });
  });

  it("puts the admin API's revocation of a group's key on the owner's audit page", async () => {
    const owner = await signedInUser(service, group, "audit-owner@example.com", "owner");
    const issued = (await service.admin("POST", `/admin/v1/groups/${group.groupId}/keys`)).body.data;
    assert.equal((await service.admin("DELETE", `/admin/v1/keys/${issued.publicKey}`)).status, 200);
    const page = await owner.get("/dashboard/audit");
    const rows = [...page.text.matchAll(/<tr data-id[^>]*>([\s\S]*?)<\/tr>/g)].map(
      (match) => match[1] as string,
    );
    const mentions = rows.filter((row) => row.includes(issued.publicKey));
    assert.equal(mentions.length, 2, "its creation and its revocation");
    assert.ok(mentions.some((row) => /revoked/.test(row)));
  });

  it("puts the admin API's SafeSite change on the group's log, and a reconciliation run on the operator's", async () => {
    const site = group.safeSites[0] as { id: string; url: string };
    const changed = await service.admin("PATCH", `/admin/v1/safe-sites/${site.id}`, { name: "Renamed" });
    assert.equal(changed.status, 200);
    const [siteEntry] = await entries("safe_site.updated", changed.body.data.url);
    assert.equal(siteEntry?.group_id, group.groupId);

    const run = await service.admin("POST", "/admin/v1/reconciliation/runs", {
      since: new Date(Date.now() - 3_600_000).toISOString(),
    });
    assert.equal(run.status, 202);
    assert.deepEqual(await entries("reconciliation.run_started", run.body.data.runId), [
      {
        group_id: null,
        actor: "admin-token",
        action: "reconciliation.run_started",
        target: run.body.data.runId,
      },
    ]);
    const refused = await service.admin("POST", "/admin/v1/reconciliation/runs", {
      since: "2999-01-01T00:00:00Z",
    });
    assert.equal(refused.status, 400);
    const [count] = await service.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE action = 'reconciliation.run_started'",
    );
    assert.equal(count?.n, 1, "a refused run is not audited");
  });
});
