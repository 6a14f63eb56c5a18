// Smaller holes in the pages: amounts past what a payment can be, control characters in a
// search, resends without a limit, and an invite form that told one merchant of another's users.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { PageClient, signedInUser } from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

describe("page limits", () => {
  let service: TestService;
  let group: TestGroup;
  let owner: PageClient;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
    owner = await signedInUser(service, group, "limits-owner@example.com", "owner");
  });
  after(() => service.close());

  const paid = async () => {
    const created = (await service.createPayment(group, { amount: 5000 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    return waitFor(async () => {
      const p = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
      return p.status === "succeeded" ? p : undefined;
    });
  };

  it("says Sandbox on every page while the sandbox processor runs", async () => {
    for (const path of ["/dashboard", "/dashboard/payments", "/dashboard/account"]) {
      assert.match((await owner.get(path)).text, /id="sandbox-marker"[^>]*>Sandbox</, path);
    }
    assert.match((await new PageClient(service.url).get("/operator/login")).text, /id="sandbox-marker"/);
  });

  it("a refund larger than any payment is refused on the page, never a 500", async () => {
    const payment = await paid();
    for (const amount of ["21474836.48", "999999999.99"]) {
      await owner.get(`/dashboard/payments/${payment.id}`);
      const answer = await owner.post(`/dashboard/payments/${payment.id}/refunds`, {
        amount,
        key: randomUUID(),
      });
      assert.equal(answer.status, 303, amount);
      const page = await owner.get(`/dashboard/payments/${payment.id}`);
      assert.match(page.text, /At most 50\.00 USD remains to refund/);
    }
    const listed = (await service.api(group, "GET", `/api/v1/payments/${payment.id}/refunds`)).body.data
      .refunds;
    assert.equal(listed.length, 0);
  });

  it("a search with NUL or another control character is a 400 page, and the CSV export refuses it up front", async () => {
    for (const q of ["%00", "a%00b", "x%1Fy"]) {
      const list = await owner.get(`/dashboard/payments?q=${q}`);
      assert.equal(list.status, 400, q);
      const csv = await owner.get(`/dashboard/payments.csv?q=${q}`);
      assert.equal(csv.status, 400, q);
      assert.doesNotMatch(csv.headers.get("content-type") ?? "", /csv/);
    }
  });

  it("resending from the dashboard is limited per group, as on the API (30 a minute)", async () => {
    const created = (await service.createPayment(group, { webhookUrl: "https://hooks.example.com/x" })).body
      .data;
    await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
    const events = await service.api(group, "GET", `/api/v1/payments/${created.transactionId}/events`);
    const [event] = events.body.data;
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      await owner.get(`/dashboard/payments/${created.transactionId}`);
      statuses.push(
        (await owner.post(`/dashboard/payments/${created.transactionId}/events/${event.eventId}/resend`))
          .status,
      );
    }
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(303));
    assert.equal(statuses[30], 429);
    // And recovering failed deliveries, 10 a minute as on the API.
    const recovers: number[] = [];
    for (let i = 0; i < 11; i++) {
      await owner.get("/dashboard/developers");
      recovers.push(
        (await owner.post("/dashboard/developers/recover", { since: "2026-01-01T00:00" })).status,
      );
    }
    assert.deepEqual(recovers.slice(0, 10), Array(10).fill(303));
    assert.equal(recovers[10], 429);
  });

  it("a cursor naming another group's payment is no position: the page and the export tell nothing of it", async () => {
    for (let i = 0; i < 3; i++) await service.createPayment(group);
    const other = await service.createGroup({ name: "Someone else's" });
    const theirs = (await service.createPayment(other)).body.data.transactionId as string;
    const rows = (text: string) => [...text.matchAll(/<tr[^>]*>[\s\S]*?<\/tr>/g)].length;
    const csvRows = (text: string) => text.trim().split("\n").length - 1;
    const foreign = await owner.get(`/dashboard/payments?after=${theirs}`);
    const unknown = await owner.get(`/dashboard/payments?after=${randomUUID()}`);
    assert.equal(foreign.status, unknown.status);
    assert.equal(rows(foreign.text), rows(unknown.text));
    const foreignCsv = await owner.get(`/dashboard/payments.csv?after=${theirs}`);
    const unknownCsv = await owner.get(`/dashboard/payments.csv?after=${randomUUID()}`);
    assert.equal(foreignCsv.status, 200);
    assert.equal(csvRows(foreignCsv.text), 0, "no payment of this group lies 'after' another group's");
    assert.equal(csvRows(unknownCsv.text), 0);
  });

  it("inviting an address that has an account in another group says nothing about that group", async () => {
    const other = await service.createGroup({ name: "Someone else" });
    await signedInUser(service, other, "elsewhere@example.com", "viewer");
    await owner.get("/dashboard/users");
    const answer = await owner.post("/dashboard/users", { email: "elsewhere@example.com", role: "viewer" });
    assert.equal(answer.status, 303);
    const page = await owner.get("/dashboard/users");
    assert.match(page.text, /That address cannot be invited/);
    assert.doesNotMatch(page.text, /already exists/);
  });
});
