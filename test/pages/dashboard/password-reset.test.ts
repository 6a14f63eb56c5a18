// Password reset through the admin API, the owner's page and by e-mail (SMTP_URL),
// tested against a real SMTP listener on loopback.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../../src/platform/db/database.ts";
import { createTestDatabase } from "../../helpers/database.ts";
import {
  cheapPasswordHashes,
  invitePath as linkPath,
  PageClient,
  signedInUser,
  TEST_PASSWORD,
} from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { smtpListener } from "../../helpers/smtp.ts";
import { waitFor } from "../../helpers/wait.ts";

const NEW_PASSWORD = "a fresh password after the reset";

/** The first link of a path in a (quoted-printable) mail body. */
const linkIn = (body: string, path: string): string => {
  const flat = body.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = new RegExp(`https?://[^\\s]+${path}/[A-Za-z0-9_-]+`).exec(flat);
  if (!match) throw new Error(`no ${path} link in ${flat}`);
  return match[0];
};

const signIn = async (service: TestService, email: string, password: string) => {
  const client = new PageClient(service.url);
  await client.get("/dashboard/login");
  const answer = await client.post("/dashboard/login", { email, password });
  return { client, status: answer.status };
};

describe("password reset", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  const reset = (email: string, audience = "dashboard") =>
    service.admin("POST", "/admin/v1/accounts/password-resets", { email, audience });

  it("through the admin API: sets the password, ends every session, signs in; once only", async () => {
    const existing = await signedInUser(service, group, "forgetful@example.com", "owner");
    assert.equal((await existing.get("/dashboard")).status, 200);
    assert.equal((await reset("nobody@example.com")).status, 404);
    assert.equal((await reset("forgetful@example.com", "operator")).status, 404, "not an operator");
    const first = await reset("forgetful@example.com");
    const issued = await reset("Forgetful@Example.com");
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const expiresIn = Date.parse(issued.body.data.expiresAt) - Date.now();
    assert.ok(expiresIn > 59 * 60_000 && expiresIn <= 60 * 60_000, `${expiresIn}`);
    // The newer link replaced the older.
    assert.equal((await new PageClient(service.url).get(linkPath(first.body.data.resetUrl))).status, 404);

    const browser = new PageClient(service.url);
    const page = await browser.get(linkPath(issued.body.data.resetUrl));
    assert.equal(page.status, 200);
    assert.match(page.text, /name="password"/);
    assert.equal(
      (await browser.post(linkPath(issued.body.data.resetUrl), { password: "short" })).status,
      400,
    );
    const done = await browser.post(linkPath(issued.body.data.resetUrl), { password: NEW_PASSWORD });
    assert.equal(done.status, 303);
    assert.equal((await browser.get("/dashboard")).status, 200, "signed in by the reset");
    assert.equal((await existing.get("/dashboard")).status, 303, "every earlier session ended");
    assert.equal((await signIn(service, "forgetful@example.com", TEST_PASSWORD)).status, 401);
    assert.equal((await signIn(service, "forgetful@example.com", NEW_PASSWORD)).status, 303);
    // Single use.
    const again = new PageClient(service.url);
    await again.get("/dashboard/login");
    assert.equal((await again.get(linkPath(issued.body.data.resetUrl))).status, 404);
    assert.equal(
      (await again.post(linkPath(issued.body.data.resetUrl), { password: "someone else's choice" })).status,
      404,
    );
    const audit = await service.services.db.query<{ action: string; actor: string }>(
      "SELECT action, actor FROM audit_log WHERE action LIKE 'account.password_reset%' ORDER BY id",
    );
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor]),
      [
        ["account.password_reset_issued", "admin-token"],
        ["account.password_reset_issued", "admin-token"],
        ["account.password_reset", "user:forgetful@example.com"],
      ],
    );
  });

  it("a link older than an hour is not valid", async () => {
    await signedInUser(service, group, "late@example.com", "viewer");
    const issued = (await reset("late@example.com")).body.data;
    await service.services.db.query("UPDATE password_resets SET expires_at = now() - interval '1 second'");
    assert.equal((await new PageClient(service.url).get(linkPath(issued.resetUrl))).status, 404);
  });

  it("an owner issues one for a user of the group, and only of the group", async () => {
    const owner = await signedInUser(service, group, "reset-owner@example.com", "owner");
    await signedInUser(service, group, "reset-user@example.com", "developer");
    const users = await owner.get("/dashboard/users");
    const userId = /reset-user@example\.com[\s\S]*?\/dashboard\/users\/([0-9a-f-]{36})\/reset/.exec(
      users.text,
    )?.[1];
    assert.ok(userId, "a reset button for the user");
    const issued = await owner.post(`/dashboard/users/${userId}/reset`);
    assert.equal(issued.status, 200);
    const url = /id="reset-url">([^<]+)</.exec(issued.text)?.[1];
    assert.ok(url);
    const browser = new PageClient(service.url);
    await browser.get(linkPath(url));
    assert.equal((await browser.post(linkPath(url), { password: NEW_PASSWORD })).status, 303);
    // Another group's user is not found from here.
    const other = await service.createGroup({ name: "Other" });
    await signedInUser(service, other, "not-yours@example.com", "viewer");
    const [foreign] = await service.services.db.query<{ id: string }>(
      "SELECT id FROM accounts WHERE email = 'not-yours@example.com'",
    );
    await owner.get("/dashboard/users");
    assert.equal((await owner.post(`/dashboard/users/${foreign?.id}/reset`)).status, 404);
  });

  it("without SMTP there is no forgot-password page", async () => {
    const page = await new PageClient(service.url).get("/dashboard/login");
    assert.doesNotMatch(page.text, /forgot/i);
    assert.equal((await new PageClient(service.url).get("/dashboard/forgot")).status, 404);
  });
});

describe("password reset and invites by e-mail", () => {
  cheapPasswordHashes();
  let service: TestService;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  let group: TestGroup;
  before(async () => {
    smtp = await smtpListener();
    service = await startTestService({
      SMTP_URL: smtp.url,
      SMTP_FROM: "Checkout <no-reply@checkout.example>",
    });
    group = await service.createGroup();
  });
  after(async () => {
    await service.close();
    await smtp.close();
  });

  it("e-mails the invite link, and a forgot-password link that works", async () => {
    await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, {
      email: "mailed@example.com",
      role: "owner",
    });
    const inviteMail = await waitFor(async () =>
      smtp.messages.find((m) => m.to.includes("mailed@example.com")),
    );
    const invite = linkIn(inviteMail.body, "/dashboard/invite");
    const browser = new PageClient(service.url);
    await browser.get(linkPath(invite));
    assert.equal((await browser.post(linkPath(invite), { password: TEST_PASSWORD })).status, 303);

    const login = await new PageClient(service.url).get("/dashboard/login");
    assert.match(login.text, /href="\/dashboard\/forgot"/);
    const forgetful = new PageClient(service.url);
    await forgetful.get("/dashboard/forgot");
    const answer = await forgetful.post("/dashboard/forgot", { email: "mailed@example.com" });
    assert.equal(answer.status, 200);
    assert.match(answer.text, /id="forgot-sent"/);
    const resetMail = await waitFor(async () =>
      smtp.messages.find((m) => m.to.includes("mailed@example.com") && /reset/i.test(m.body)),
    );
    const link = linkIn(resetMail.body, "/dashboard/reset");
    await forgetful.get(linkPath(link));
    assert.equal((await forgetful.post(linkPath(link), { password: NEW_PASSWORD })).status, 303);
    assert.equal((await forgetful.get("/dashboard")).status, 200);
  });

  it("answers the same for an address with no account, and sends nothing", async () => {
    const before = smtp.messages.length;
    const client = new PageClient(service.url);
    await client.get("/dashboard/forgot");
    const answer = await client.post("/dashboard/forgot", { email: "stranger@example.com" });
    assert.equal(answer.status, 200);
    assert.match(answer.text, /id="forgot-sent"/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(smtp.messages.length, before);
  });
});

describe("forgot password cannot be timed or turned into a flood", () => {
  cheapPasswordHashes();
  let service: TestService;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  let group: TestGroup;
  /** While set, every transaction waits this long first: the reset link's write is slow. */
  let transactionDelayMs = 0;
  before(async () => {
    smtp = await smtpListener();
    const { db } = await createTestDatabase();
    const slowable: Database = {
      ...db,
      transaction: async (work) => {
        if (transactionDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, transactionDelayMs));
        return db.transaction(work);
      },
    };
    service = await startTestService({ SMTP_URL: smtp.url, TRUST_PROXY: "true" }, { db: slowable });
    group = await service.createGroup();
    await signedInUser(service, group, "flooded@example.com", "viewer");
    await signedInUser(service, group, "timed@example.com", "viewer");
  });
  after(async () => {
    await service.close();
    await smtp.close();
  });

  const forgot = async (email: string, from: string) => {
    const client = new PageClient(service.url);
    await client.get("/dashboard/forgot");
    const started = performance.now();
    const response = await fetch(`${service.url}/dashboard/forgot`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: client.cookieHeader,
        "x-forwarded-for": from,
      },
      body: new URLSearchParams({ _csrf: client.csrf, email }).toString(),
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  };

  it("answers an address with an account as fast as one without: the link is made after the answer", async () => {
    transactionDelayMs = 1500;
    try {
      const known = await forgot("timed@example.com", "10.1.0.1");
      const unknown = await forgot("nobody-here@example.com", "10.1.0.2");
      assert.equal(known.status, 200);
      assert.equal(known.text.replace(/value="[^"]+"/g, ""), unknown.text.replace(/value="[^"]+"/g, ""));
      assert.ok(known.ms < 750, `the answer waited for the reset link (${Math.round(known.ms)} ms)`);
    } finally {
      transactionDelayMs = 0;
    }
    await waitFor(async () => smtp.messages.find((m) => m.to.includes("timed@example.com")));
  });

  it("sends one account at most 3 reset e-mails an hour, whatever the asking addresses", async () => {
    for (let i = 0; i < 20; i++)
      assert.equal((await forgot("flooded@example.com", `10.2.0.${i + 1}`)).status, 200);
    await waitFor(async () =>
      smtp.messages.filter((m) => m.to.includes("flooded@example.com") && /reset/i.test(m.body)).length >= 3
        ? true
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mails = smtp.messages.filter((m) => m.to.includes("flooded@example.com") && /reset/i.test(m.body));
    assert.equal(mails.length, 3);
    const [issued] = await service.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM password_resets r JOIN accounts a ON a.id = r.account_id
       WHERE a.email = 'flooded@example.com'`,
    );
    assert.equal(issued?.n, 3, "the third link is still the one that works");
  });
});
