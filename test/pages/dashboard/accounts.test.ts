// Accounts and sessions of the dashboard and console: invites through the admin API,
// passwords, sign-in throttling, cookies, CSRF, sign-out and revocation, all over real HTTP.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  acceptInvite,
  cheapPasswordHashes,
  invitePath,
  PageClient,
  signedInUser,
  TEST_PASSWORD,
} from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

describe("dashboard accounts and sessions", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;

  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(async () => service?.close());

  const inviteUser = (email: string, role = "developer", groupId = group.groupId) =>
    service.admin("POST", `/admin/v1/groups/${groupId}/users`, { email, role });

  describe("invites through the admin API", () => {
    it("POST /admin/v1/groups/:groupId/users answers 201 {userId, email, role, inviteUrl}", async () => {
      const answer = await inviteUser("dev-invite@example.com", "developer");
      assert.equal(answer.status, 201);
      assert.deepEqual(Object.keys(answer.body.data).sort(), ["email", "inviteUrl", "role", "userId"]);
      assert.equal(answer.body.data.email, "dev-invite@example.com");
      assert.equal(answer.body.data.role, "developer");
      assert.match(
        answer.body.data.inviteUrl,
        /^http:\/\/localhost:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/,
      );
    });

    it("POST /admin/v1/operators answers 201 {operatorId, email, inviteUrl}", async () => {
      const answer = await service.admin("POST", "/admin/v1/operators", { email: "ops-invite@example.com" });
      assert.equal(answer.status, 201);
      assert.deepEqual(Object.keys(answer.body.data).sort(), ["email", "inviteUrl", "operatorId"]);
      assert.match(answer.body.data.inviteUrl, /\/operator\/invite\//);
    });

    it("refuses a bad role, a bad email, an unknown group and a missing token, creating nothing", async () => {
      assert.equal((await inviteUser("x@example.com", "admin")).status, 400);
      assert.equal((await inviteUser("not an email", "viewer")).status, 400);
      const unknown = await inviteUser("x@example.com", "viewer", "00000000-0000-4000-8000-000000000000");
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, "NOT_FOUND");
      const anonymous = await service.request("POST", "/admin/v1/operators", {
        body: { email: "x@example.com" },
      });
      assert.equal(anonymous.status, 401);
      const rows = await service.services.db.query("SELECT 1 FROM accounts WHERE email = 'x@example.com'");
      assert.equal(rows.length, 0);
    });

    it("an email that already signed up cannot be invited again (409 ACCOUNT_EXISTS)", async () => {
      await signedInUser(service, group, "taken@example.com", "viewer");
      const again = await inviteUser("TAKEN@example.com", "owner");
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, "ACCOUNT_EXISTS");
    });
  });

  describe("the invite link", () => {
    it("has a password input, works once, and signs the user in", async () => {
      const url = (await inviteUser("once@example.com")).body.data.inviteUrl;
      const client = new PageClient(service.url);
      const page = await client.get(invitePath(url));
      assert.equal(page.status, 200);
      assert.match(page.text, /<input[^>]+name="password"/);
      const accepted = await client.post(invitePath(url), { password: TEST_PASSWORD });
      assert.equal(accepted.status, 303);
      assert.equal(accepted.location, "/dashboard");
      assert.equal((await client.get("/dashboard")).status, 200);
      const reuse = new PageClient(service.url);
      await reuse.get("/dashboard/login");
      assert.equal((await reuse.get(invitePath(url))).status, 404);
      assert.equal((await reuse.post(invitePath(url), { password: "another long password" })).status, 404);
    });

    it("expires after 72 hours", async () => {
      const url = (await inviteUser("late@example.com")).body.data.inviteUrl;
      const [row] = await service.services.db.query<{ hours: number }>(
        "SELECT extract(epoch FROM i.expires_at - i.created_at) / 3600 AS hours FROM account_invites i JOIN accounts a ON a.id = i.account_id WHERE a.email = 'late@example.com'",
      );
      assert.equal(Number(row?.hours), 72);
      await service.services.db.query(
        "UPDATE account_invites SET expires_at = now() - interval '1 second' WHERE account_id = (SELECT id FROM accounts WHERE email = 'late@example.com')",
      );
      assert.equal((await new PageClient(service.url).get(invitePath(url))).status, 404);
    });

    it("refuses a short password and keeps the invite usable", async () => {
      const url = (await inviteUser("short@example.com")).body.data.inviteUrl;
      const client = new PageClient(service.url);
      await client.get(invitePath(url));
      const refused = await client.post(invitePath(url), { password: "short" });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /at least 12 characters/);
      assert.equal((await client.post(invitePath(url), { password: TEST_PASSWORD })).status, 303);
    });

    it("stores the password with scrypt, never in clear", async () => {
      const [row] = await service.services.db.query<{ password_hash: string }>(
        "SELECT password_hash FROM accounts WHERE email = 'once@example.com'",
      );
      assert.match(row?.password_hash ?? "", /^scrypt\$1024\$8\$1\$/);
      assert.ok(!row?.password_hash.includes(TEST_PASSWORD));
    });
  });

  describe("signing in", () => {
    it("GET /dashboard/login and /operator/login have inputs named email and password", async () => {
      for (const path of ["/dashboard/login", "/operator/login"]) {
        const page = await new PageClient(service.url).get(path);
        assert.equal(page.status, 200);
        assert.match(page.text, /<input[^>]+name="email"/);
        assert.match(page.text, /<input[^>]+name="password"/);
        assert.match(page.text, /name="_csrf"/);
      }
    });

    it("signs in with the right password, with an HttpOnly SameSite=Lax session cookie", async () => {
      await signedInUser(service, group, "signin@example.com", "viewer");
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      const answer = await client.post("/dashboard/login", {
        email: "SignIn@example.com",
        password: TEST_PASSWORD,
      });
      assert.equal(answer.status, 303);
      const cookie = answer.headers.getSetCookie().find((one) => one.startsWith("checkout_session="));
      assert.ok(cookie);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.doesNotMatch(cookie, /Secure/, "PUBLIC_URL is http here");
      assert.equal((await client.get("/dashboard")).status, 200);
    });

    it("a merchant user cannot use the operator console, nor an operator the dashboard", async () => {
      const user = await signedInUser(service, group, "not-an-operator@example.com", "owner");
      const console = await user.get("/operator");
      assert.equal(console.status, 303);
      assert.equal(console.location, "/operator/login");
    });

    it("answers a wrong password with the login page and an error, and no session", async () => {
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      const answer = await client.post("/dashboard/login", {
        email: "signin@example.com",
        password: "wrong password!",
      });
      assert.equal(answer.status, 401);
      assert.match(answer.text, /do not match/);
      assert.ok(!client.cookies.has("checkout_session"));
      assert.equal((await client.get("/dashboard")).status, 303);
    });

    it("after 10 failures in 15 minutes refuses the account for 15 minutes, even with the right password", async () => {
      await signedInUser(service, group, "throttled@example.com", "viewer");
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      for (let attempt = 1; attempt <= 9; attempt++) {
        const answer = await client.post("/dashboard/login", {
          email: "throttled@example.com",
          password: `wrong ${attempt}`,
        });
        assert.equal(answer.status, 401, `attempt ${attempt}`);
      }
      const tenth = await client.post("/dashboard/login", {
        email: "throttled@example.com",
        password: "wrong 10",
      });
      assert.equal(tenth.status, 429);
      const right = await client.post("/dashboard/login", {
        email: "throttled@example.com",
        password: TEST_PASSWORD,
      });
      assert.equal(right.status, 429);
      assert.match(right.text, /Too many failed sign-ins/);
      const retryAfter = Number(right.headers.get("retry-after"));
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `retry-after ${retryAfter}`);
      assert.ok(!client.cookies.has("checkout_session"));
      // Another account is not affected.
      const other = new PageClient(service.url);
      await other.get("/dashboard/login");
      assert.equal(
        (await other.post("/dashboard/login", { email: "signin@example.com", password: TEST_PASSWORD }))
          .status,
        303,
      );
      // Once the lock has run out, the right password works again.
      await service.services.db.query(
        "UPDATE password_check_budgets SET locked_until = now() - interval '1 second', window_started = now() - interval '16 minutes'",
      );
      assert.equal(
        (await client.post("/dashboard/login", { email: "throttled@example.com", password: TEST_PASSWORD }))
          .status,
        303,
      );
    });

    it("throttles an unknown account the same way, so the answer says nothing about who exists", async () => {
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      const answers: number[] = [];
      for (let attempt = 1; attempt <= 11; attempt++) {
        answers.push(
          (await client.post("/dashboard/login", { email: "nobody@example.com", password: "guess" })).status,
        );
      }
      assert.deepEqual(answers, [...Array(9).fill(401), 429, 429]);
    });
  });

  describe("CSRF", () => {
    it("refuses a form without the token, or with another's, with 403 and changes nothing", async () => {
      const client = await signedInUser(service, group, "csrf@example.com", "owner");
      await client.get("/dashboard/developers");
      const keysBefore = await service.services.db.query("SELECT 1 FROM api_keys WHERE group_id = $1", [
        group.groupId,
      ]);
      const missing = await client.post("/dashboard/developers/keys", {}, null);
      assert.equal(missing.status, 403);
      assert.match(missing.text, /expired or did not come from this site/);
      const other = new PageClient(service.url);
      await other.get("/dashboard/login");
      const foreign = await client.post("/dashboard/developers/keys", {}, other.csrf);
      assert.equal(foreign.status, 403);
      const keysAfter = await service.services.db.query("SELECT 1 FROM api_keys WHERE group_id = $1", [
        group.groupId,
      ]);
      assert.equal(keysAfter.length, keysBefore.length);
      // A browser that kept its session but lost the token's cookie (a restart): every form on
      // the first page it loads works, not just the last one.
      client.cookies.delete("checkout_csrf");
      const page = await client.get("/dashboard/developers");
      const tokens = new Set(
        [...page.text.matchAll(/name="_csrf" value="([^"]+)"/g)].map((match) => match[1]),
      );
      assert.equal(tokens.size, 1);
      assert.equal((await client.post("/dashboard/developers/webhook-secret/reveal")).status, 200);
      // The sign-in form is protected too (login CSRF).
      const login = await new PageClient(service.url).post(
        "/dashboard/login",
        { email: "csrf@example.com", password: TEST_PASSWORD },
        null,
      );
      assert.equal(login.status, 403);
    });
  });

  describe("sessions", () => {
    it("signing out ends the session on the server: the old cookie no longer works", async () => {
      const client = await signedInUser(service, group, "signout@example.com", "viewer");
      const stolen = new PageClient(service.url);
      for (const [name, value] of client.cookies) stolen.cookies.set(name, value);
      await client.get("/dashboard");
      assert.equal((await client.post("/dashboard/logout")).status, 303);
      const replay = await stolen.get("/dashboard");
      assert.equal(replay.status, 303);
      assert.equal(replay.location, "/dashboard/login");
    });

    it("lists the account's sessions and revoking one signs that browser out", async () => {
      await signedInUser(service, group, "two-browsers@example.com", "viewer");
      const laptop = new PageClient(service.url);
      await laptop.get("/dashboard/login");
      await laptop.post("/dashboard/login", { email: "two-browsers@example.com", password: TEST_PASSWORD });
      const phone = new PageClient(service.url);
      await phone.get("/dashboard/login");
      await phone.post("/dashboard/login", { email: "two-browsers@example.com", password: TEST_PASSWORD });
      const account = await laptop.get("/dashboard/account");
      const rows = account.text.split("<tr>").filter((row) => row.includes("/revoke"));
      assert.equal(rows.length, 3, "the invite's session and two sign-ins");
      assert.equal(rows.filter((row) => row.includes(">current session<")).length, 1);
      for (const row of rows.filter((one) => !one.includes(">current session<"))) {
        const id = /sessions\/([0-9a-f-]{36})\/revoke/.exec(row)?.[1];
        assert.equal((await laptop.post(`/dashboard/account/sessions/${id}/revoke`)).status, 303);
      }
      assert.equal((await phone.get("/dashboard")).status, 303, "the phone is signed out");
      assert.equal((await laptop.get("/dashboard")).status, 200, "the laptop is not");
      const audit = await service.services.db.query(
        "SELECT 1 FROM audit_log WHERE action = 'session.revoked'",
      );
      assert.ok(audit.length >= 1);
    });

    it("changing the password signs out every other session", async () => {
      const first = await signedInUser(service, group, "rotate-pw@example.com", "viewer");
      const second = new PageClient(service.url);
      await second.get("/dashboard/login");
      await second.post("/dashboard/login", { email: "rotate-pw@example.com", password: TEST_PASSWORD });
      await first.get("/dashboard/account");
      const wrong = await first.post("/dashboard/account/password", {
        current: "not it",
        password: "a brand new password",
      });
      assert.equal(wrong.status, 303);
      assert.equal((await second.get("/dashboard")).status, 200, "a refused change signs nobody out");
      await first.get("/dashboard/account");
      await first.post("/dashboard/account/password", {
        current: TEST_PASSWORD,
        password: "a brand new password",
      });
      assert.equal((await second.get("/dashboard")).status, 303);
      assert.equal((await first.get("/dashboard")).status, 200);
      const again = new PageClient(service.url);
      await again.get("/dashboard/login");
      assert.equal(
        (
          await again.post("/dashboard/login", {
            email: "rotate-pw@example.com",
            password: "a brand new password",
          })
        ).status,
        303,
      );
    });

    it("never stores the account it reads with the session, even when the session is saved again", async () => {
      const client = await signedInUser(service, group, "stored-session@example.com", "viewer");
      await client.get("/dashboard/account");
      // A refused change leaves a message in the session: the session is written again.
      await client.post("/dashboard/account/password", {
        current: "not it",
        password: "another long password",
      });
      assert.match((await client.get("/dashboard/account")).text, /current password is not right/);
      const rows = await service.services.db.query<{ data: Record<string, unknown> }>(
        `SELECT s.data FROM web_sessions s JOIN accounts a ON a.id = s.account_id
         WHERE a.email = 'stored-session@example.com'`,
      );
      assert.ok(rows.length > 0);
      for (const { data } of rows) {
        assert.equal(data.account, undefined);
        assert.doesNotMatch(
          JSON.stringify(data),
          /stored-session@example\.com|totp_enabled_at|password_hash/,
        );
      }
    });

    it("keeps only a hash of the session id in the database", async () => {
      const client = await signedInUser(service, group, "hashed-session@example.com", "viewer");
      const cookie = decodeURIComponent(client.cookies.get("checkout_session") ?? "");
      const sessionId = cookie.split(".")[0] as string;
      const rows = await service.services.db.query(
        "SELECT 1 FROM web_sessions WHERE id_hash = $1 OR data::text LIKE $2",
        [sessionId, `%${sessionId}%`],
      );
      assert.equal(rows.length, 0);
    });
  });

  it("an operator accepts an invite and signs in to the console", async () => {
    const invite = await service.admin("POST", "/admin/v1/operators", { email: "console@example.com" });
    const operator = await acceptInvite(service, invite.body.data.inviteUrl);
    const home = await operator.get("/operator");
    assert.equal(home.status, 200);
    assert.match(home.text, /<h1>Groups<\/h1>/);
    assert.equal((await operator.get("/dashboard")).status, 303);
  });
});

describe("sign-in throttling per address", () => {
  cheapPasswordHashes();
  it("refuses every sign-in from an address with 100 failures in 15 minutes, whatever the account", async () => {
    const service = await startTestService();
    try {
      const group = await service.createGroup();
      await signedInUser(service, group, "spray-target@example.com", "viewer");
      // A password spray: many accounts, a few guesses each (seeded, not hashed 100 times over).
      await service.services.db.query(
        "INSERT INTO password_check_budgets (key, window_started, used) VALUES ('address:127.0.0.1', now(), 100)",
      );
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      const refused = await client.post("/dashboard/login", {
        email: "spray-target@example.com",
        password: TEST_PASSWORD,
      });
      assert.equal(refused.status, 429);
      await service.services.db.query(
        "UPDATE password_check_budgets SET window_started = now() - interval '16 minutes'",
      );
      assert.equal(
        (
          await client.post("/dashboard/login", {
            email: "spray-target@example.com",
            password: TEST_PASSWORD,
          })
        ).status,
        303,
      );
    } finally {
      await service.close();
    }
  });
});

describe("dashboard cookies behind https", () => {
  cheapPasswordHashes();
  it("are Secure when PUBLIC_URL is https, and pages answer only on its host", async () => {
    const service = await startTestService({
      PUBLIC_URL: "https://checkout.example.com",
      TRUST_PROXY: "127.0.0.1",
    });
    try {
      const group = await service.createGroup();
      const invite = await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, {
        email: "tls@example.com",
        role: "owner",
      });
      assert.match(invite.body.data.inviteUrl, /^https:\/\/checkout\.example\.com\/dashboard\/invite\//);
      const path = invitePath(invite.body.data.inviteUrl);
      const viaProxy = { "x-forwarded-proto": "https", "x-forwarded-host": "checkout.example.com" };
      const page = await fetch(`${service.url}${path}`, { headers: viaProxy });
      const csrfCookie = page.headers.getSetCookie().find((one) => one.startsWith("checkout_csrf="));
      assert.match(csrfCookie ?? "", /Secure/);
      const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
      const accepted = await fetch(`${service.url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          ...viaProxy,
          "content-type": "application/x-www-form-urlencoded",
          cookie: (csrfCookie ?? "").split(";")[0] as string,
        },
        body: new URLSearchParams({ _csrf: token, password: TEST_PASSWORD }).toString(),
      });
      assert.equal(accepted.status, 303);
      const session = accepted.headers.getSetCookie().find((one) => one.startsWith("checkout_session="));
      assert.match(session ?? "", /; Secure/);
      assert.match(session ?? "", /HttpOnly/);
      // A SafeSite's domain pointing at the service shows no page: only PUBLIC_URL's host does.
      const onSafeSite = await fetch(`${service.url}/dashboard/login`, {
        headers: { "x-forwarded-proto": "https", "x-forwarded-host": "pay.shop.example" },
      });
      assert.equal(onSafeSite.status, 404);
      assert.doesNotMatch(await onSafeSite.text(), /name="password"/);
    } finally {
      await service.close();
    }
  });
});
