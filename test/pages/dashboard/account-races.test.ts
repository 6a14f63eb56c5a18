// Issue "Accounts you can trust": the takeover and session holes, and throttles under
// concurrency, tested as races with parallel requests against a real server (both databases).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { acceptInvite, invitePath, PageClient, signedInUser, TEST_PASSWORD } from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { waitFor } from "../../helpers/wait.ts";

describe("accounts under attack", () => {
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  const invite = async (email: string, role = "owner") => {
    const answer = await service.admin("POST", `/admin/v1/groups/${group.groupId}/users`, { email, role });
    return answer;
  };
  const failedChecks = async (actorEmail: string) =>
    Number(
      (
        await service.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM audit_log WHERE action = 'account.sign_in_failed' AND actor = $1",
          [`user:${actorEmail}`],
        )
      )[0]?.n,
    );

  it("an older invite link sets no password once another was accepted, and changes nothing", async () => {
    const first = (await invite("taken-over@example.com")).body.data.inviteUrl;
    const second = (await invite("taken-over@example.com")).body.data.inviteUrl;
    // Issuing the second revoked the first.
    const stale = new PageClient(service.url);
    assert.equal((await stale.get(invitePath(first))).status, 404);
    const owner = await acceptInvite(service, second);
    assert.equal((await owner.get("/dashboard")).status, 200);
    // Accepted: no link of this account shows a form any more, and a POST to one is refused.
    for (const url of [first, second]) {
      const attacker = new PageClient(service.url);
      await attacker.get("/dashboard/login"); // a CSRF token, as a real attacker's browser would have
      const page = await attacker.get(invitePath(url));
      assert.equal(page.status, 404);
      assert.doesNotMatch(page.text, /name="password"/);
      const post = await attacker.post(
        invitePath(url),
        { password: "attacker chose this one" },
        attacker.csrf,
      );
      assert.equal(post.status, 404);
      assert.ok(!attacker.cookies.has("checkout_session"));
    }
    // The owner's password and session are untouched.
    assert.equal((await owner.get("/dashboard")).status, 200);
    const again = new PageClient(service.url);
    await again.get("/dashboard/login");
    assert.equal(
      (await again.post("/dashboard/login", { email: "taken-over@example.com", password: TEST_PASSWORD }))
        .status,
      303,
    );
    const attempt = new PageClient(service.url);
    await attempt.get("/dashboard/login");
    const withStolen = await attempt.post("/dashboard/login", {
      email: "taken-over@example.com",
      password: "attacker chose this one",
    });
    assert.equal(withStolen.status, 401);
    // And an account with a password cannot be invited again.
    assert.equal((await invite("taken-over@example.com")).status, 409);
  });

  it("a session signed out while a slow request of it is in flight stays signed out", async () => {
    await signedInUser(service, group, "in-flight@example.com", "owner");
    for (let round = 1; round <= 5; round++) {
      const client = new PageClient(service.url);
      await client.get("/dashboard/login");
      await client.post("/dashboard/login", { email: "in-flight@example.com", password: TEST_PASSWORD });
      await client.get("/dashboard/account");
      const cookie = client.cookieHeader;
      const csrf = client.csrf;
      // Slow: a password check (~0.3 s of scrypt) that saves the session when it ends.
      const slow = fetch(`${service.url}/dashboard/account/password`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, current: "not the password", password: "x".repeat(20) }),
        redirect: "manual",
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const out = await fetch(`${service.url}/dashboard/logout`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf }),
        redirect: "manual",
      });
      assert.equal(out.status, 303);
      await (await slow).text();
      const afterwards = await fetch(`${service.url}/dashboard`, { headers: { cookie }, redirect: "manual" });
      assert.equal(afterwards.status, 303, `round ${round}: the old cookie must not reach /dashboard`);
      assert.match(afterwards.headers.get("location") ?? "", /\/dashboard\/login$/);
    }
  });

  it("a password change ends other sessions for good, even one written by a request in flight", async () => {
    await signedInUser(service, group, "changer@example.com", "owner");
    const other = new PageClient(service.url);
    await other.get("/dashboard/login");
    await other.post("/dashboard/login", { email: "changer@example.com", password: TEST_PASSWORD });
    await other.get("/dashboard/account");
    const me = new PageClient(service.url);
    await me.get("/dashboard/login");
    await me.post("/dashboard/login", { email: "changer@example.com", password: TEST_PASSWORD });
    await me.get("/dashboard/account");
    // The other session has a slow request in flight while the password changes.
    const slow = other.post("/dashboard/account/password", {
      current: "wrong wrong wrong",
      password: "y".repeat(20),
    });
    const changed = await me.post("/dashboard/account/password", {
      current: TEST_PASSWORD,
      password: "a brand new password",
    });
    assert.equal(changed.status, 303);
    await slow;
    assert.equal((await other.get("/dashboard")).status, 303, "the other session is over");
    assert.equal((await me.get("/dashboard")).status, 200, "the session that changed it goes on");
  });

  it("29 wrong passwords at once get at most 10 checks, and the right one sent after them is refused", async () => {
    await signedInUser(service, group, "burst@example.com", "viewer");
    const client = new PageClient(service.url);
    await client.get("/dashboard/login");
    const wrong = Array.from({ length: 29 }, (_unused, i) =>
      client.post("/dashboard/login", { email: "burst@example.com", password: `wrong guess ${i}` }),
    );
    // Once the guesses in flight have spent the budget, the right password is refused too.
    await waitFor(async () => {
      const [budget] = await service.services.db.query<{ used: number }>(
        "SELECT used FROM password_check_budgets WHERE key = 'merchant:burst@example.com'",
      );
      return (budget?.used ?? 0) >= 10 ? true : undefined;
    });
    const right = await client.post("/dashboard/login", {
      email: "burst@example.com",
      password: TEST_PASSWORD,
    });
    assert.equal(right.status, 429, "the right password does not get in while the guesses are in flight");
    const answers = await Promise.all(wrong);
    assert.ok(answers.every((answer) => answer.status === 401 || answer.status === 429));
    assert.equal(
      answers.filter((answer) => answer.status === 401).length,
      9,
      "nine answered wrong, the tenth locked",
    );
    assert.equal(await failedChecks("burst@example.com"), 10, "exactly 10 password checks, not 29");
  });

  it("the change-password form spends the same budget: a stolen session cannot guess either", async () => {
    const stolen = await signedInUser(service, group, "guessed@example.com", "owner");
    await stolen.get("/dashboard/account");
    const guesses = [];
    for (let i = 0; i < 12; i++) {
      guesses.push(
        await stolen.post("/dashboard/account/password", { current: `guess ${i}`, password: "z".repeat(20) }),
      );
      await stolen.get("/dashboard/account");
    }
    const right = await stolen.post("/dashboard/account/password", {
      current: TEST_PASSWORD,
      password: "the attacker's password",
    });
    assert.equal(right.status, 303);
    const page = await stolen.get("/dashboard/account");
    assert.match(page.text, /Too many wrong passwords/);
    // The owner's password still works: the change never happened.
    const owner = new PageClient(service.url);
    await owner.get("/dashboard/login");
    await service.services.db.query("DELETE FROM password_check_budgets WHERE key LIKE '%guessed%'");
    assert.equal(
      (await owner.post("/dashboard/login", { email: "guessed@example.com", password: TEST_PASSWORD }))
        .status,
      303,
    );
  });

  it("an address is one account however it is written: the budget follows it", async () => {
    await signedInUser(service, group, "kit-cased@example.com", "viewer");
    const client = new PageClient(service.url);
    await client.get("/dashboard/login");
    for (let i = 0; i < 10; i++) {
      await client.post("/dashboard/login", {
        email: i % 2 ? "KIT-cased@Example.com" : "kit-cased@example.com",
        password: `no ${i}`,
      });
    }
    for (const email of ["kit-cased@example.com", " Kit-Cased@EXAMPLE.com ", "kİt-cased@example.com"]) {
      const answer = await client.post("/dashboard/login", { email, password: TEST_PASSWORD });
      assert.notEqual(answer.status, 303, `${email} must not sign in`);
      assert.ok(!client.cookies.has("checkout_session"));
    }
  });

  it("the audit log pages newest first, past id 99, with no gap and no repeat", async () => {
    await service.services.db.query(
      "INSERT INTO audit_log (group_id, actor, action, target) SELECT $1, 'admin-token', 'test.entry', n::text FROM generate_series(1, 230) AS n",
      [group.groupId],
    );
    const owner = await signedInUser(service, group, "auditor@example.com", "owner");
    const seen: number[] = [];
    let path: string | null = "/dashboard/audit";
    while (path) {
      const page = await owner.get(path);
      assert.equal(page.status, 200);
      const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.text)?.[1] ?? "";
      for (const row of body.matchAll(/<tr[^>]*data-id="(\d+)"/g)) seen.push(Number(row[1]));
      const next = /<a href="([^"]+)" rel="next"/.exec(page.text)?.[1];
      path = next ? next.replaceAll("&amp;", "&") : null;
    }
    const ids = await service.services.db.query<{ id: string }>(
      "SELECT id::text FROM audit_log WHERE group_id = $1 ORDER BY audit_log.id DESC",
      [group.groupId],
    );
    assert.deepEqual(
      seen,
      ids.map((row) => Number(row.id)),
    );
  });
});
