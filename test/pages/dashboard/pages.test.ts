// The dashboard's and console's pages over real HTTP: roles, payments and their filters, the CSV
// export, escaping, keys and secrets, users, and the operator's queues.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  acceptInvite,
  cheapPasswordHashes,
  PageClient,
  SECRET_TOKEN,
  signedInOperator,
  signedInUser,
} from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

const CSV_HEADER =
  "transactionId,status,amount,currency,amountRefunded,customerEmail,description,createdAt,completedAt";

describe("dashboard pages", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let otherGroup: TestGroup;
  let owner: PageClient;
  let developer: PageClient;
  let viewer: PageClient;

  const pay = async (overrides: Record<string, unknown> = {}) => {
    const created = (await service.createPayment(group, overrides)).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () => {
      const read = await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`);
      return read.body.data.status === "succeeded" ? true : undefined;
    });
    return created;
  };

  before(async () => {
    service = await startTestService();
    group = await service.createGroup({ name: "Shop" });
    otherGroup = await service.createGroup({ name: "Someone else" });
    owner = await signedInUser(service, group, "owner@shop.example", "owner");
    developer = await signedInUser(service, group, "dev@shop.example", "developer");
    viewer = await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(async () => service?.close());

  it("every page sends a strict CSP without inline script, frame-ancestors 'none' and no-store", async () => {
    const anonymous = new PageClient(service.url);
    for (const path of [
      "/dashboard",
      "/dashboard/payments",
      "/dashboard/developers",
      "/dashboard/login",
      "/operator/login",
    ]) {
      const page = await (path.endsWith("/login") ? anonymous : owner).get(path);
      assert.equal(page.status, 200, path);
      const csp = page.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(page.headers.get("x-frame-options"), "DENY");
      assert.equal(page.headers.get("cache-control"), "no-store");
      assert.doesNotMatch(
        page.text,
        /<script>|<script [^>]*>[^<]|style="|\son[a-z]+=/i,
        `${path}: no inline script or style`,
      );
    }
  });

  it("sends anyone not signed in to the login page", async () => {
    const response = await fetch(`${service.url}/dashboard/payments`, { redirect: "manual" });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("location"), "/dashboard/login");
    const unknown = await owner.get("/dashboard/no-such-page");
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get("content-type") ?? "", /text\/html/);
  });

  it("keeps the pages out of the API's OpenAPI document", async () => {
    const paths = Object.keys((await service.request("GET", "/openapi.json")).body.paths);
    assert.deepEqual(
      paths.filter((path) => /^\/(dashboard|operator|assets)/.test(path)),
      [],
    );
    assert.ok(paths.includes("/admin/v1/groups/{groupId}/users"));
  });

  it("overview: counts by status, paid volume and conversion over the last 30 days, as charts", async () => {
    await pay({ amount: 2500 });
    await service.createPayment(group, { amount: 100 });
    const page = await viewer.get("/dashboard");
    assert.equal(page.status, 200);
    assert.match(page.text, /<svg class="chart"[^>]*role="img"/);
    assert.match(page.text, /Paid volume, USD/);
    assert.match(page.text, /id="conversion">50\.0 %/);
  });

  describe("payments", () => {
    it("finds a payment by customer email (any case) and by transaction id, and filters by status", async () => {
      const paid = await pay({ customerEmail: "Findme@Customer.example", amount: 1234 });
      const byEmail = await viewer.get("/dashboard/payments?q=findme%40customer.example");
      assert.match(byEmail.text, new RegExp(`/dashboard/payments/${paid.transactionId}`));
      assert.match(byEmail.text, /12\.34 USD/);
      const byId = await viewer.get(`/dashboard/payments?q=${paid.transactionId}`);
      assert.equal([...byId.text.matchAll(/href="\/dashboard\/payments\/[0-9a-f-]{36}"/g)].length, 1);
      const processing = await viewer.get("/dashboard/payments?status=processing");
      assert.doesNotMatch(processing.text, new RegExp(paid.transactionId));
      // A bound may also be a full ISO 8601 time, as the API's `since` is.
      const hourAgo = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
      assert.match(
        (await viewer.get(`/dashboard/payments?from=${hourAgo}`)).text,
        new RegExp(paid.transactionId),
      );
      assert.doesNotMatch(
        (await viewer.get(`/dashboard/payments?to=${hourAgo}`)).text,
        new RegExp(paid.transactionId),
      );
      const future = await viewer.get("/dashboard/payments?from=2099-01-01");
      assert.match(future.text, /No payments match/);
    });

    it("pages by cursor: 50 a page, then the older ones, none twice", async () => {
      const pager = await service.createGroup({ name: "Pager" });
      const user = await signedInUser(service, pager, "pager@shop.example", "viewer");
      const ids = new Set<string>();
      for (let index = 0; index < 53; index++)
        ids.add((await service.createPayment(pager)).body.data.transactionId);
      const first = await user.get("/dashboard/payments");
      const firstIds = [...first.text.matchAll(/href="\/dashboard\/payments\/([0-9a-f-]{36})"/g)].map(
        (m) => m[1],
      );
      assert.equal(firstIds.length, 50);
      const next = /href="(\/dashboard\/payments\?after=[^"]+)" rel="next"/.exec(first.text)?.[1];
      assert.ok(next);
      const second = await user.get(next.replaceAll("&amp;", "&"));
      const secondIds = [...second.text.matchAll(/href="\/dashboard\/payments\/([0-9a-f-]{36})"/g)].map(
        (m) => m[1],
      );
      assert.equal(secondIds.length, 3);
      assert.deepEqual(new Set([...firstIds, ...secondIds]), ids);
      assert.doesNotMatch(second.text, /rel="next"/);
    });

    it("refuses malformed filters with an error page, never a 500", async () => {
      for (const query of [
        "status=bogus",
        "from=yesterday",
        "to=2026-13",
        "after=not-a-uuid",
        "from=0000-01-01",
        "to=9999-12-31",
        "from=2026-02-31",
        `q=${"x".repeat(400)}`,
      ]) {
        const page = await viewer.get(`/dashboard/payments?${query}`);
        assert.equal(page.status, 400, query);
        assert.match(page.headers.get("content-type") ?? "", /text\/html/);
        assert.equal((await viewer.get(`/dashboard/payments.csv?${query}`)).status, 400, `CSV ${query}`);
      }
    });

    it("shows another group's payment to nobody here (404)", async () => {
      const foreign = (await service.createPayment(otherGroup)).body.data;
      const page = await owner.get(`/dashboard/payments/${foreign.transactionId}`);
      assert.equal(page.status, 404);
      assert.equal((await owner.get("/dashboard/payments/not-a-uuid")).status, 404);
    });

    it("the detail page shows metadata, the status history with reasons and the events", async () => {
      const paid = await pay({ description: "Blue mug", metadata: { orderId: "A-17", gift: true } });
      const page = await viewer.get(`/dashboard/payments/${paid.transactionId}`);
      assert.equal(page.status, 200);
      assert.match(page.text, /id="description">Blue mug</);
      assert.match(page.text, /orderId<\/td><td>A-17/);
      assert.match(page.text, /gift<\/td><td>true/);
      assert.match(page.text, /The processor's event <code>evt_/);
      assert.doesNotMatch(
        page.text,
        /processor_event:|>partially_refunded</,
        "stored words are not shown raw",
      );
      assert.match(page.text, /jane@example\.com/);
      assert.doesNotMatch(page.text, /id="dropped-webhook-url"/);
    });

    it("a payment nobody has paid reads Incomplete; a paid one shows no checkout deadline and no processor jargon", async () => {
      const open = (await service.createPayment(group)).body.data;
      const list = await viewer.get("/dashboard/payments");
      assert.match(list.text, /data-status="processing" title="Not paid yet[^"]*">Incomplete</);
      assert.match(list.text, /<option value="processing">Incomplete<\/option>/);
      assert.match(list.text, /<td class="via">Stripe<\/td>/, "the processor of each payment");
      const { breakers } = service.services.payments;
      for (let failure = 0; failure < 5; failure++) breakers.unknown("stripe");
      try {
        const failing = await viewer.get("/dashboard/payments");
        assert.match(
          failing.text,
          /<td class="via">Stripe <span class="badge unavailable"[^>]*>failing<\/span>/,
        );
      } finally {
        breakers.answered("stripe");
      }
      const unpaid = await viewer.get(`/dashboard/payments/${open.transactionId}`);
      assert.match(unpaid.text, /<dt>Checkout open until<\/dt>/);
      const paid = await pay();
      const page = await viewer.get(`/dashboard/payments/${paid.transactionId}`);
      assert.doesNotMatch(page.text, /Link expires|Checkout open until/, "a paid payment has no deadline");
      assert.doesNotMatch(page.text, /<dt>(SafeSite|Processor session|Payment intent)<\/dt>/);
      assert.match(page.text, /<dt>Paid on<\/dt>/);
      assert.match(page.text, /<dt>At the processor<\/dt><dd>checkout <span class="mono">cs_/);
    });

    it("a refund is confirmed on a second step for the amount typed; an empty amount refunds nothing", async () => {
      const paid = await pay({ amount: 1800 });
      const path = `/dashboard/payments/${paid.transactionId}`;
      const form = await owner.get(path);
      assert.match(form.text, /id="refund-amount" name="amount" inputmode="decimal" value="18\.00" required/);
      const refunds = async () =>
        (await service.api(group, "GET", `/api/v1/payments/${paid.transactionId}/refunds`)).body.data.refunds;
      const empty = await owner.post(`${path}/refunds`, { amount: "", key: randomUUID() });
      assert.equal(empty.status, 303);
      assert.match(
        (await owner.get(path)).text,
        /Enter the amount to refund, such as 12\.50 \(at most 18\.00 USD\)/,
      );
      const key = randomUUID();
      const review = await owner.post(`${path}/refunds`, { amount: "5", reason: "duplicate", key });
      assert.equal(review.status, 200);
      assert.match(review.text, /Refund 5\.00 USD of 18\.00 USD to jane@example\.com\?/);
      assert.equal((await refunds()).length, 0, "nothing refunded before the confirmation");
      const confirmed = await owner.post(`${path}/refunds`, {
        amount: "5.00",
        reason: "duplicate",
        key,
        confirm: "true",
      });
      assert.equal(confirmed.status, 303);
      const [refund] = await refunds();
      assert.equal(refund?.amount, 500);
    });

    it("says on the events section when the webhookUrl given was dropped, and why", async () => {
      const paid = await pay({ webhookUrl: "http://10.1.2.3:8080/hook" });
      const page = await viewer.get(`/dashboard/payments/${paid.transactionId}`);
      assert.match(
        page.text,
        /id="dropped-webhook-url"[^>]*>The webhookUrl given at create \(host <span class="mono">10\.1\.2\.3:8080</,
      );
      assert.match(page.text, /checkout listen/);
      assert.match(page.text, /payment\.completed/, "its events are listed all the same");
    });

    it("escapes what merchants and customers wrote: an XSS probe in description and metadata stays text", async () => {
      const probe = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
      const created = (
        await service.createPayment(group, {
          description: probe,
          metadata: { 'k<b>"': probe },
          customerName: probe,
        })
      ).body.data;
      for (const path of [
        `/dashboard/payments/${created.transactionId}`,
        `/dashboard/payments?q=${created.transactionId}`,
      ]) {
        const page = await viewer.get(path);
        assert.equal(page.status, 200);
        assert.ok(!page.text.includes("<script>alert"), path);
        assert.ok(!page.text.includes("<img src=x"), path);
        assert.ok(
          page.text.includes(
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
          ),
          path,
        );
      }
    });
  });

  it("answers hostile form input with an error page, never a 500, and refunds nothing", async () => {
    const paid = await pay({ amount: 700 });
    await owner.get("/dashboard/developers");
    const token = owner.csrf;
    const targets = [
      `/dashboard/payments/${paid.transactionId}/refunds`,
      "/dashboard/developers/keys",
      `/dashboard/developers/safe-sites/${group.safeSites[0]?.id}`,
      "/dashboard/developers/recover",
      "/dashboard/users",
      "/dashboard/account/password",
      "/dashboard/login",
    ];
    const bodies: [string, string][] = [
      ["application/x-www-form-urlencoded", `_csrf=${encodeURIComponent(token)}&amount=1&amount=2&key=x`],
      [
        "application/x-www-form-urlencoded",
        `_csrf=${encodeURIComponent(token)}&amount=${"9".repeat(5000)}&key=00000000-0000-4000-8000-000000000009`,
      ],
      [
        "application/x-www-form-urlencoded",
        `_csrf=${encodeURIComponent(token)}&email=%00&role=owner&isActive=maybe&since=%F0%9F`,
      ],
      ["application/json", JSON.stringify({ _csrf: token, amount: { $gt: 1 }, role: ["owner"] })],
      ["text/plain", "amount=1"],
      ["application/x-www-form-urlencoded", "%%%"],
      ["application/x-www-form-urlencoded", `_csrf=${encodeURIComponent(token)}&${"a=1&".repeat(20000)}`],
    ];
    for (const path of targets) {
      for (const [type, body] of bodies) {
        const response = await fetch(`${service.url}${path}`, {
          method: "POST",
          headers: { cookie: owner.cookieHeader, "content-type": type },
          body,
          redirect: "manual",
        });
        assert.ok(response.status < 500, `${path} ${type} ${body.slice(0, 40)}: ${response.status}`);
        await response.arrayBuffer();
      }
    }
    const refunds = await service.api(group, "GET", `/api/v1/payments/${paid.transactionId}/refunds`);
    assert.equal(refunds.body.data.refunds.length, 0);
  });

  describe("CSV export", () => {
    it("streams the documented header and one row per payment, amounts in cents, same filters", async () => {
      const exportGroup = await service.createGroup({ name: "Export" });
      const user = await signedInUser(service, exportGroup, "csv@shop.example", "viewer");
      const tricky = (
        await service.createPayment(exportGroup, {
          amount: 123456,
          currency: "cad",
          description: 'Mug, "large"\nsecond line',
          customerEmail: "csv-customer@example.com",
        })
      ).body.data;
      const formula = (await service.createPayment(exportGroup, { description: '=HYPERLINK("http://evil")' }))
        .body.data;
      const response = await fetch(`${service.url}/dashboard/payments.csv?q=csv-customer%40example.com`, {
        headers: { cookie: user.cookieHeader },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
      assert.match(
        response.headers.get("content-disposition") ?? "",
        /attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"/,
      );
      const text = await response.text();
      const [header, row, rest] = text.split("\r\n");
      assert.equal(header, CSV_HEADER);
      // The export's time is the API's, to the millisecond (the list reads it as ISO 8601 text).
      const { createdAt } = (
        await service.api(exportGroup, "GET", `/api/v1/payments/${tricky.transactionId}`)
      ).body.data;
      assert.match(createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(
        row,
        `${tricky.transactionId},processing,123456,cad,0,csv-customer@example.com,"Mug, ""large""\nsecond line",${createdAt},`,
      );
      assert.equal(rest, "");
      const all = await (
        await fetch(`${service.url}/dashboard/payments.csv`, { headers: { cookie: user.cookieHeader } })
      ).text();
      assert.equal(all.trimEnd().split("\r\n").length, 3);
      assert.match(
        all,
        new RegExp(
          `${formula.transactionId},processing,1999,usd,0,jane@example.com,"'=HYPERLINK\\(""http://evil""\\)"`,
        ),
      );
    });

    it("exports more than one batch without losing or repeating a row", async () => {
      const big = await service.createGroup({ name: "Big" });
      const user = await signedInUser(service, big, "big@shop.example", "viewer");
      await service.services.db.query(
        `INSERT INTO payments (id, group_id, status, amount, currency, customer_email, success_url, cancel_url, safe_site_id, safe_site_url, link_token, expires_at, created_at)
         SELECT gen_random_uuid(), $1, 'expired', n, 'usd', 'bulk@example.com', 'https://s.example', 'https://c.example', $2, 'https://s.example', gen_random_uuid()::text, now(), now() - make_interval(secs => n)
         FROM generate_series(1, 1203) AS n`,
        [big.groupId, big.safeSites[0]?.id],
      );
      const text = await (
        await fetch(`${service.url}/dashboard/payments.csv`, { headers: { cookie: user.cookieHeader } })
      ).text();
      const rows = text.trimEnd().split("\r\n").slice(1);
      assert.equal(rows.length, 1203);
      assert.equal(new Set(rows.map((row) => row.split(",")[0])).size, 1203);
      assert.equal(
        rows.map((row) => Number(row.split(",")[2])).reduce((a, b) => a + b, 0),
        (1203 * 1204) / 2,
      );
    });
  });

  describe("privacy", () => {
    it("an owner erases a customer after a confirmation step: the search, the list, the page and the export forget them", async () => {
      const paid = await pay({
        customerEmail: "Gone.Soon@Customer.example",
        customerName: "Gone Soon",
        amount: 4321,
      });
      const ask = await owner.get("/dashboard/privacy");
      assert.equal(ask.status, 200);
      assert.match(ask.text, /<form method="post" action="\/dashboard\/privacy"[^>]*id="erase-ask"/);
      assert.match(ask.text, /<input id="erase-email" name="email" type="email"/);
      const confirm = await owner.post("/dashboard/privacy", { email: "gone.soon@customer.example" });
      assert.equal(confirm.status, 200);
      assert.match(confirm.text, /id="erase-confirm"/);
      assert.match(confirm.text, /<input type="hidden" name="email" value="gone\.soon@customer\.example">/);
      assert.match(confirm.text, /<input type="hidden" name="confirm" value="true">/);
      const unchanged = await service.api(group, "GET", `/api/v1/payments/${paid.transactionId}`);
      assert.equal(unchanged.body.data.customerEmail, "Gone.Soon@Customer.example", "asking erases nothing");
      const done = await owner.post("/dashboard/privacy", {
        email: "gone.soon@customer.example",
        confirm: "true",
      });
      assert.equal(done.status, 303);
      assert.match((await owner.get("/dashboard/privacy")).text, /erased from 1 payment\./);
      const search = await viewer.get("/dashboard/payments?q=gone.soon%40customer.example");
      assert.match(search.text, /No payments match/);
      const detail = await viewer.get(`/dashboard/payments/${paid.transactionId}`);
      assert.match(detail.text, /id="customer"><span class="muted">Erased /);
      assert.doesNotMatch(detail.text, /Gone Soon|gone\.soon/i);
      const csv = await fetch(`${service.url}/dashboard/payments.csv`, {
        headers: { cookie: viewer.cookieHeader },
      });
      const rows = (await csv.text()).split("\r\n").filter((line) => line.startsWith(paid.transactionId));
      assert.equal(rows.length, 1);
      assert.match(rows[0] ?? "", new RegExp(`^${paid.transactionId},succeeded,4321,usd,0,,,`));
      const [audit] = await service.services.db.query<{ actor: string; detail: { payments: number } }>(
        "SELECT actor, detail FROM audit_log WHERE action = 'customer.erased' AND group_id = $1",
        [group.groupId],
      );
      assert.match(audit?.actor ?? "", /owner@shop\.example|^account:/);
      assert.equal(audit?.detail.payments, 1);
    });

    it("developers and viewers may not erase; a malformed address is the form again, never a 500", async () => {
      for (const user of [developer, viewer]) {
        assert.equal((await user.get("/dashboard/privacy")).status, 403);
        await user.get("/dashboard");
        const refused = await user.post("/dashboard/privacy", {
          email: "a@customer.example",
          confirm: "true",
        });
        assert.equal(refused.status, 403);
      }
      await owner.get("/dashboard/privacy");
      for (const email of ["not an address", "a\u0000b@customer.example", "x".repeat(300)]) {
        const answer = await owner.post("/dashboard/privacy", { email, confirm: "true" });
        assert.equal(answer.status, 400, email);
      }
    });
  });

  describe("roles", () => {
    it("a viewer sees no refund form and no secrets, and a direct POST is refused with 403", async () => {
      const paid = await pay({ amount: 5000 });
      const detail = await viewer.get(`/dashboard/payments/${paid.transactionId}`);
      assert.doesNotMatch(detail.text, /refund-form|\/refunds"/);
      assert.doesNotMatch(detail.text, /\/resend"/);
      const refused = await viewer.post(`/dashboard/payments/${paid.transactionId}/refunds`, {
        amount: "10.00",
        key: "00000000-0000-4000-8000-000000000001",
      });
      assert.equal(refused.status, 403);
      const refunds = await service.api(group, "GET", `/api/v1/payments/${paid.transactionId}/refunds`);
      assert.equal(refunds.body.data.refunds.length, 0, "nothing was refunded");
      const developers = await viewer.get("/dashboard/developers");
      assert.equal(developers.status, 200);
      assert.doesNotMatch(developers.text, /webhook-secret\/reveal/);
      assert.doesNotMatch(developers.text, SECRET_TOKEN);
      assert.ok(!developers.text.includes(group.webhookSecret) && !developers.text.includes(group.secretKey));
      for (const path of [
        "/dashboard/developers/webhook-secret/reveal",
        "/dashboard/developers/webhook-secret/rotate",
        "/dashboard/developers/keys",
        `/dashboard/developers/keys/${group.publicKey}/revoke`,
      ]) {
        const answer = await viewer.post(path);
        assert.equal(answer.status, 403, path);
        assert.doesNotMatch(answer.text, SECRET_TOKEN);
      }
      assert.equal((await viewer.get("/dashboard/users")).status, 403);
      assert.equal((await viewer.get("/dashboard/audit")).status, 403);
      assert.equal((await service.api(group, "GET", "/api/v1/auth/test")).status, 200, "the key still works");
    });

    it("a developer manages keys and the webhook secret but not users", async () => {
      await developer.get("/dashboard/developers");
      const revealed = await developer.post("/dashboard/developers/webhook-secret/reveal");
      assert.equal(revealed.status, 200);
      assert.ok(revealed.text.includes(group.webhookSecret));
      const created = await developer.post("/dashboard/developers/keys");
      const publicKey = /id="new-public-key">([^<]+)</.exec(created.text)?.[1] as string;
      const secretKey = /id="new-secret-key">([^<]+)</.exec(created.text)?.[1] as string;
      const keyed = { ...group, publicKey, secretKey };
      assert.equal((await service.api(keyed, "GET", "/api/v1/auth/test")).status, 200);
      assert.ok(
        !(await developer.get("/dashboard/developers")).text.includes(secretKey),
        "the secret is shown once",
      );
      assert.equal((await developer.post(`/dashboard/developers/keys/${publicKey}/revoke`)).status, 303);
      assert.equal((await service.api(keyed, "GET", "/api/v1/auth/test")).status, 401);
      // Another group's key is not this group's to revoke.
      await developer.get("/dashboard/developers");
      assert.equal(
        (await developer.post(`/dashboard/developers/keys/${otherGroup.publicKey}/revoke`)).status,
        404,
      );
      assert.equal((await service.api(otherGroup, "GET", "/api/v1/auth/test")).status, 200);
      assert.equal((await developer.get("/dashboard/users")).status, 403);
    });

    it("an owner invites, changes a role (effective at once) and removes a user (signed out at once)", async () => {
      await owner.get("/dashboard/users");
      const invited = await owner.post("/dashboard/users", { email: "new@shop.example", role: "viewer" });
      assert.equal(invited.status, 200);
      const inviteUrl = /id="invite-url">([^<]+)</.exec(invited.text)?.[1] as string;
      assert.match(inviteUrl, /\/dashboard\/invite\//);
      const newcomer = await acceptInvite(service, inviteUrl);
      assert.equal(
        (await newcomer.get("/dashboard/developers/webhook-secret/reveal")).status,
        404,
        "GET is not a route",
      );
      await newcomer.get("/dashboard/developers");
      assert.equal((await newcomer.post("/dashboard/developers/webhook-secret/reveal")).status, 403);
      const users = await owner.get("/dashboard/users");
      const userId = /new@shop\.example[\s\S]*?\/dashboard\/users\/([0-9a-f-]{36})\/role/.exec(
        users.text,
      )?.[1] as string;
      assert.equal((await owner.post(`/dashboard/users/${userId}/role`, { role: "developer" })).status, 303);
      await newcomer.get("/dashboard/developers");
      assert.equal((await newcomer.post("/dashboard/developers/webhook-secret/reveal")).status, 200);
      await owner.get("/dashboard/users");
      assert.equal((await owner.post(`/dashboard/users/${userId}/remove`)).status, 303);
      assert.equal((await newcomer.get("/dashboard")).status, 303, "removed means signed out");
    });

    it("the last owner can be neither demoted nor removed", async () => {
      const solo = await service.createGroup({ name: "Solo" });
      const soloOwner = await signedInUser(service, solo, "solo@shop.example", "owner");
      const users = await soloOwner.get("/dashboard/users");
      const userId = /\/dashboard\/users\/([0-9a-f-]{36})\/role/.exec(users.text)?.[1] as string;
      assert.equal((await soloOwner.post(`/dashboard/users/${userId}/role`, { role: "viewer" })).status, 400);
      assert.equal((await soloOwner.get("/dashboard/users")).status, 200, "still an owner");
    });

    it("owners read the audit log: who, what, when, from where", async () => {
      const page = await owner.get("/dashboard/audit");
      assert.equal(page.status, 200);
      assert.match(page.text, /user:dev@shop\.example<\/td><td class="mono">webhook_secret\.revealed/);
      assert.match(page.text, /api_key\.created/);
      assert.match(page.text, /user\.role_changed/);
      assert.match(page.text, /127\.0\.0\.1/);
      assert.doesNotMatch(page.text, /Someone else/);
    });
  });

  describe("developers page", () => {
    it("deactivates and activates a SafeSite of the group only", async () => {
      const site = group.safeSites[0]?.id as string;
      await developer.get("/dashboard/developers");
      assert.equal(
        (await developer.post(`/dashboard/developers/safe-sites/${site}`, { isActive: "false" })).status,
        303,
      );
      const refused = await service.createPayment(group);
      assert.equal(refused.status, 409, "no active SafeSite");
      await developer.get("/dashboard/developers");
      await developer.post(`/dashboard/developers/safe-sites/${site}`, { isActive: "true" });
      assert.equal((await service.createPayment(group)).status, 200);
      await developer.get("/dashboard/developers");
      const foreign = await developer.post(
        `/dashboard/developers/safe-sites/${otherGroup.safeSites[0]?.id}`,
        { isActive: "false" },
      );
      assert.equal(foreign.status, 404);
    });

    it("recovers failed webhooks over a window, and refuses a window that ends before it starts", async () => {
      await developer.get("/dashboard/developers");
      const done = await developer.post("/dashboard/developers/recover", {
        since: "2026-01-01T00:00",
        until: "",
      });
      assert.equal(done.status, 303);
      assert.match((await developer.get("/dashboard/developers")).text, /queued for delivery again/);
      const backwards = await developer.post("/dashboard/developers/recover", {
        since: "2026-02-01T00:00",
        until: "2026-01-01T00:00",
      });
      assert.equal(backwards.status, 303);
      assert.match((await developer.get("/dashboard/developers")).text, /Choose a start before the end/);
      const beforeTime = await developer.post("/dashboard/developers/recover", { since: "0000-01-01T00:00" });
      assert.equal(beforeTime.status, 303, "the API's own window rule: from 1970 on");
      await developer.get("/dashboard/developers");
      const malformed = await developer.post("/dashboard/developers/recover", { since: "yesterday" });
      assert.equal(malformed.status, 400);
    });
  });

  describe("operator console", () => {
    let operator: PageClient;
    before(async () => {
      operator = await signedInOperator(service, "ops@checkout.example");
    });

    it("creates a group with a SafeSite and shows its keys once", async () => {
      await operator.get("/operator");
      const created = await operator.post("/operator/groups", {
        name: "New merchant",
        siteName: "Main",
        siteUrl: "https://pay.new.example",
      });
      assert.equal(created.status, 200);
      assert.match(created.text, SECRET_TOKEN);
      const groupId = /href="\/operator\/groups\/([0-9a-f-]{36})">Invite its first owner/.exec(
        created.text,
      )?.[1] as string;
      const detail = await operator.get(`/operator/groups/${groupId}`);
      assert.match(detail.text, /https:\/\/pay\.new\.example/);
      assert.doesNotMatch(detail.text, SECRET_TOKEN);
      const invited = await operator.post(`/operator/groups/${groupId}/users`, {
        email: "first-owner@new.example",
        role: "owner",
      });
      assert.match(invited.text, /id="invite-url">[^<]+\/dashboard\/invite\//);
      const bad = await operator.post("/operator/groups", {
        name: "",
        siteName: "Main",
        siteUrl: "javascript:alert(1)",
      });
      assert.equal(bad.status, 400);
    });

    it("shows and edits a group's processor routing as tables, refusing what is not a processor", async () => {
      const routed = await service.createGroup({ name: "Routed by hand" });
      const page = `/operator/groups/${routed.groupId}`;
      const shown = (await operator.get(page)).text;
      assert.match(
        shown,
        /id="routing">Every payment follows the installation's default route: <strong>Stripe → Square</,
      );
      assert.match(shown, /<select name="route0_currency" aria-label="Route 1: currency">/);
      const saved = await operator.post(`${page}/routing`, {
        route0_currency: "usd",
        route0_processor0: "square",
        route0_processor1: "stripe",
        route1_currency: "",
        route1_processor0: "stripe",
        route1_processor1: "",
        route2_currency: "",
        route2_processor0: "",
      });
      assert.equal(saved.status, 303);
      const table = (await operator.get(page)).text;
      assert.match(table, /<tr><td>1<\/td><td>USD<\/td><td>Square → Stripe<\/td><\/tr>/);
      assert.match(table, /<tr><td>2<\/td><td>any currency<\/td><td>Stripe<\/td><\/tr>/);
      assert.match(
        table,
        /<select name="route0_processor0"[^>]*><option value="">—<\/option><option value="stripe">Stripe<\/option><option value="square" selected>/,
      );
      assert.deepEqual(
        (await service.admin("GET", `/admin/v1/groups/${routed.groupId}/routing`)).body.data.routes,
        [{ currency: "usd", processors: ["square", "stripe"] }, { processors: ["stripe"] }],
      );
      assert.equal((await operator.post(`${page}/routing`, { route0_processor0: "paypal" })).status, 400);
      assert.equal((await operator.post(`${page}/routing`, { route0_currency: "cad" })).status, 303);
      const refused = await operator.get(page);
      assert.match(refused.text, /Route 1 \(CAD\) names no processor/);
      assert.match(refused.text, /<td>Square → Stripe<\/td>/, "unchanged");
      assert.equal((await operator.post(`${page}/routing`, {})).status, 303);
      assert.match((await operator.get(page)).text, /follows the installation's default route/);
    });

    it("revokes a group's key in an emergency, at once", async () => {
      const victim = await service.createGroup({ name: "Leaked" });
      await operator.get(`/operator/groups/${victim.groupId}`);
      const revoked = await operator.post(
        `/operator/groups/${victim.groupId}/keys/${victim.publicKey}/revoke`,
      );
      assert.equal(revoked.status, 303);
      assert.equal((await service.api(victim, "GET", "/api/v1/auth/test")).status, 401);
    });

    it("resolves a paid-after-cancel item with a note, which leaves the queue and enters the audit log", async () => {
      const created = (await service.createPayment(group)).body.data;
      await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      await waitFor(async () => {
        const queue = await operator.get("/operator/reconciliation");
        return queue.text.includes(created.transactionId) ? true : undefined;
      });
      const queue = await operator.get("/operator/reconciliation");
      assert.match(queue.text, /Paid after it was cancelled/);
      // The merchant sees it plainly on the payment's page, and is offered no refund form.
      const merchantView = await owner.get(`/dashboard/payments/${created.transactionId}`);
      assert.match(merchantView.text, /id="paid-after-cancel"[^>]*>.*Paid after it was cancelled/s);
      assert.doesNotMatch(merchantView.text, /id="refund-form"/);
      const item = (await service.admin("GET", "/admin/v1/reconciliation")).body.data.find(
        (entry: { transactionId: string }) => entry.transactionId === created.transactionId,
      );
      assert.equal(item.kind, "paid_after_cancel");
      const resolved = await operator.post("/operator/reconciliation/resolve", {
        id: item.id,
        note: "Refunded at Stripe by hand",
      });
      assert.equal(resolved.status, 303);
      assert.ok(!(await operator.get("/operator/reconciliation")).text.includes(created.transactionId));
      const again = await operator.post("/operator/reconciliation/resolve", { id: item.id, note: "twice" });
      assert.equal(again.status, 404);
      const audit = await operator.get("/operator/audit");
      assert.match(
        audit.text,
        /operator:ops@checkout\.example<\/td><td class="mono">reconciliation\.resolved/,
      );
      assert.match(audit.text, /Refunded at Stripe by hand/);
      const api = (await service.admin("GET", "/admin/v1/reconciliation")).body.data;
      assert.ok(!JSON.stringify(api).includes(created.transactionId));
    });

    it("refunds a payment paid after cancel in full from its queue item", async () => {
      const created = (await service.createPayment(group, { amount: 4200 })).body.data;
      await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      await waitFor(async () => {
        const queue = await operator.get("/operator/reconciliation");
        return queue.text.includes(created.transactionId) ? queue : undefined;
      });
      assert.match((await operator.get("/operator/reconciliation")).text, /Refund 42\.00 USD in full/);
      const refunded = await operator.post("/operator/reconciliation/refund", {
        transactionId: created.transactionId,
      });
      assert.equal(refunded.status, 303);
      const payment = await waitFor(async () => {
        const p = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
        return p.amountRefunded === 4200 ? p : undefined;
      });
      assert.equal(payment.status, "cancelled");
      // Nothing left to give back: no second refund, and the button is gone.
      const again = await operator.post("/operator/reconciliation/refund", {
        transactionId: created.transactionId,
      });
      assert.equal(again.status, 303);
      const listed = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}/refunds`))
        .body.data.refunds;
      assert.equal(listed.length, 1);
      assert.doesNotMatch((await operator.get("/operator/reconciliation")).text, /Refund 42\.00 USD in full/);
      const audit = await operator.get("/operator/audit");
      assert.match(audit.text, /payment\.refunded/);
    });

    it("shows failed deliveries, recovers them, and shows health", async () => {
      assert.equal((await operator.get("/operator/deliveries")).status, 200);
      const recovered = await operator.post("/operator/deliveries/recover", {
        since: "2026-01-01T00:00",
        until: "",
        groupId: "",
      });
      assert.equal(recovered.status, 303);
      const health = await operator.get("/operator/health");
      assert.equal(health.status, 200);
      assert.match(health.text, /database · \d+ ms/);
      assert.match(health.text, /id="queue-depth">\d+</);
      assert.match(health.text, /oldest undelivered event/);
    });

    it("health shows each processor: answering or failing, what it takes, and its last hour", async () => {
      const counts = async () => {
        const text = (await operator.get("/operator/health")).text;
        const of = (name: string) => {
          const row = new RegExp(`<tr id="processor-${name}">(.*?)</tr>`, "s").exec(text)?.[1] ?? "";
          const [created, passedOver] = [...row.matchAll(/<td class="num">(\d+)<\/td>/g)].map((m) =>
            Number(m[1]),
          );
          return { row, created, passedOver };
        };
        return { stripe: of("stripe"), square: of("square") };
      };
      const before = await counts();
      assert.match(
        before.stripe.row,
        /<td>Stripe<\/td><td><span class="badge ok">answering<\/span><\/td><td>USD, CAD<\/td>/,
      );
      assert.match(before.square.row, /<td>Square<\/td>/);
      await service.createPayment(group);
      const { breakers } = service.services.payments;
      for (let failure = 0; failure < 5; failure++) breakers.unknown("stripe");
      try {
        await service.createPayment(group);
        const after = await counts();
        assert.match(after.stripe.row, /badge unavailable">failing</);
        assert.equal(after.stripe.created, (before.stripe.created ?? 0) + 1);
        assert.equal(after.stripe.passedOver, (before.stripe.passedOver ?? 0) + 1);
        assert.equal(after.square.created, (before.square.created ?? 0) + 1);
      } finally {
        breakers.answered("stripe");
      }
    });

    it("operators' forms need the CSRF token too, and merchants cannot post to them", async () => {
      await operator.get("/operator");
      assert.equal(
        (
          await operator.post(
            "/operator/groups",
            { name: "x", siteName: "y", siteUrl: "https://z.example" },
            null,
          )
        ).status,
        403,
      );
      await owner.get("/dashboard");
      const merchantTry = await owner.post("/operator/groups", {
        name: "x",
        siteName: "y",
        siteUrl: "https://z.example",
      });
      assert.equal(merchantTry.status, 303);
      assert.equal(merchantTry.location, "/operator/login");
    });
  });
});
