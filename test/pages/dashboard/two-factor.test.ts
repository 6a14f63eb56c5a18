// Two-factor sign-in with TOTP and recovery codes; required by an owner for a group,
// or for operators by OPERATORS_REQUIRE_2FA; the secret sealed at rest.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import * as OTPAuth from "otpauth";
import {
  cheapPasswordHashes,
  PageClient,
  signedInOperator,
  signedInUser,
  TEST_PASSWORD,
} from "../../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";

const decode = (text: string) =>
  text.replaceAll("&amp;", "&").replaceAll("&#61;", "=").replaceAll("&#x3D;", "=").replaceAll("&quot;", '"');

/** Turns two-factor sign-in on from the account page; the TOTP and the recovery codes. */
async function enrol(client: PageClient, base = "/dashboard") {
  const page = await client.get(`${base}/account`);
  assert.match(page.text, /<svg class="qr"/);
  const uri = decode(/id="otpauth-uri"[^>]*>([^<]+)</.exec(page.text)?.[1] ?? "");
  assert.match(uri, /^otpauth:\/\/totp\/[^?]+\?.*secret=[A-Z2-7]+/);
  const totp = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
  assert.equal((await client.post(`${base}/account/two-factor`, { code: "000000" })).status, 303);
  await client.get(`${base}/account`);
  const on = await client.post(`${base}/account/two-factor`, { code: totp.generate() });
  assert.equal(on.status, 200);
  const codes = [
    ...(/<ul class="recovery-codes[^"]*">([\s\S]*?)<\/ul>/.exec(on.text)?.[1] ?? "").matchAll(
      /<li>([^<]+)<\/li>/g,
    ),
  ].map((match) => match[1] as string);
  assert.equal(codes.length, 10);
  return { totp, codes };
}

/** Password first; the answer is the second form (or a session when two-factor is off). */
async function signInWithPassword(service: TestService, email: string, base = "/dashboard") {
  const client = new PageClient(service.url);
  await client.get(`${base}/login`);
  const answer = await client.post(`${base}/login`, { email, password: TEST_PASSWORD });
  const challenge = /name="challenge" value="([^"]+)"/.exec(answer.text)?.[1];
  return { client, answer, challenge };
}

describe("two-factor sign-in", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
  });
  after(() => service.close());

  it("enrols with a code, shows 10 recovery codes once, and keeps the secret sealed", async () => {
    const owner = await signedInUser(service, group, "totp-owner@example.com", "owner");
    const { codes } = await enrol(owner);
    assert.equal(new Set(codes).size, 10);
    const page = await owner.get("/dashboard/account");
    assert.match(page.text, /id="two-factor-on"/);
    assert.doesNotMatch(page.text, /recovery-codes/);
    const [row] = await service.services.db.query<{ totp_secret: string }>(
      "SELECT totp_secret FROM accounts WHERE email = 'totp-owner@example.com'",
    );
    assert.match(row?.totp_secret ?? "", /^sealed\.v1\./);
    // Recovery codes: slow hashes, salted per account, never a bare digest of the code.
    const stored = await service.services.db.query<{ code_hash: string }>(
      `SELECT r.code_hash FROM recovery_codes r JOIN accounts a ON a.id = r.account_id
       WHERE a.email = 'totp-owner@example.com'`,
    );
    assert.equal(stored.length, 10);
    const salts = new Set(stored.map((each) => each.code_hash.split("$")[4]));
    assert.ok(stored.every((each) => /^scrypt\$\d+\$\d+\$\d+\$[\w-]{22}\$[\w-]{43}$/.test(each.code_hash)));
    assert.equal(salts.size, 1, "one salt for the account's set");
    const digest = (code: string) => createHash("sha256").update(code).digest("hex");
    assert.ok(!stored.some((each) => codes.map(digest).includes(each.code_hash)));
    const other = await signedInUser(service, group, "totp-other-salt@example.com", "viewer");
    await enrol(other);
    const [otherRow] = await service.services.db.query<{ code_hash: string }>(
      `SELECT r.code_hash FROM recovery_codes r JOIN accounts a ON a.id = r.account_id
       WHERE a.email = 'totp-other-salt@example.com' LIMIT 1`,
    );
    assert.ok(!salts.has(otherRow?.code_hash.split("$")[4]), "another account, another salt");
  });

  it("hashes again, salted and slowly, recovery codes stored as bare digests before, and they still work", async () => {
    const user = await signedInUser(service, group, "totp-legacy@example.com", "viewer");
    const { codes } = await enrol(user);
    const digest = (code: string) => createHash("sha256").update(code).digest("hex");
    // As an installation from before salting stored them.
    await service.services.db.query(
      `UPDATE recovery_codes r SET code_hash = d.digest
       FROM (SELECT unnest($1::text[]) AS digest, generate_series(1, 10) AS n) d,
            (SELECT account_id, code_hash, row_number() OVER (ORDER BY code_hash) AS n FROM recovery_codes
             WHERE account_id = (SELECT id FROM accounts WHERE email = 'totp-legacy@example.com')) o
       WHERE r.account_id = o.account_id AND r.code_hash = o.code_hash AND d.n = o.n`,
      [codes.map(digest)],
    );
    assert.equal(await service.services.twoFactor.saltRecoveryCodes(), 1);
    const rows = await service.services.db.query<{ code_hash: string }>(
      `SELECT r.code_hash FROM recovery_codes r JOIN accounts a ON a.id = r.account_id
       WHERE a.email = 'totp-legacy@example.com'`,
    );
    assert.ok(rows.every((each) => each.code_hash.startsWith("scrypt$")));
    assert.equal(await service.services.twoFactor.saltRecoveryCodes(), 0, "once");
    const signIn = await signInWithPassword(service, "totp-legacy@example.com");
    const recovered = await signIn.client.post("/dashboard/login/code", {
      challenge: signIn.challenge as string,
      code: codes[3] as string,
    });
    assert.equal(recovered.status, 303);
  });

  it("asks for a code after the right password; refuses a wrong or replayed one; recovery codes work once", async () => {
    const user = await signedInUser(service, group, "totp-user@example.com", "developer");
    const { totp, codes } = await enrol(user);

    const first = await signInWithPassword(service, "totp-user@example.com");
    assert.equal(first.answer.status, 200);
    assert.match(first.answer.text, /name="code"/);
    assert.ok(first.challenge);
    assert.equal((await first.client.get("/dashboard")).status, 303, "no session before the code");
    const wrong = await first.client.post("/dashboard/login/code", {
      challenge: first.challenge,
      code: "123456",
    });
    assert.equal(wrong.status, 401);
    const next = totp.generate({ timestamp: Date.now() + 30_000 });
    const right = await first.client.post("/dashboard/login/code", {
      challenge: first.challenge,
      code: next,
    });
    assert.equal(right.status, 303);
    assert.equal((await first.client.get("/dashboard")).status, 200);
    // The challenge is used up, and an older code than the last accepted one is refused.
    assert.equal(
      (await first.client.post("/dashboard/login/code", { challenge: first.challenge, code: next })).status,
      401,
    );
    const replay = await signInWithPassword(service, "totp-user@example.com");
    const older = await replay.client.post("/dashboard/login/code", {
      challenge: replay.challenge as string,
      code: totp.generate(),
    });
    assert.equal(older.status, 401, "a code is never accepted twice");

    const recovery = await signInWithPassword(service, "totp-user@example.com");
    const withRecovery = await recovery.client.post("/dashboard/login/code", {
      challenge: recovery.challenge as string,
      code: (codes[0] as string).toUpperCase(),
    });
    assert.equal(withRecovery.status, 303);
    const again = await signInWithPassword(service, "totp-user@example.com");
    assert.equal(
      (
        await again.client.post("/dashboard/login/code", {
          challenge: again.challenge as string,
          code: codes[0] as string,
        })
      ).status,
      401,
      "a recovery code works once",
    );
  });

  it("wrong codes spend the account's budget: guessing stops after 10", async () => {
    const user = await signedInUser(service, group, "totp-guessed@example.com", "viewer");
    await enrol(user);
    const attacker = await signInWithPassword(service, "totp-guessed@example.com");
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const answer = await attacker.client.post("/dashboard/login/code", {
        challenge: attacker.challenge as string,
        code: String(100000 + i),
      });
      statuses.push(answer.status);
    }
    assert.ok(
      statuses.slice(0, 9).every((status) => status === 401),
      statuses.join(","),
    );
    assert.equal(statuses[10], 429);
  });

  it("the right password does not refill the budget wrong codes spent; each wrong code is audited, a sign-in once", async () => {
    const user = await signedInUser(service, group, "totp-repassword@example.com", "viewer");
    const { totp } = await enrol(user);
    const auditCount = async (action: string) => {
      const [row] = await service.services.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log a JOIN accounts c ON c.id::text = a.target
         WHERE c.email = 'totp-repassword@example.com' AND a.action = $1`,
        [action],
      );
      return row?.n ?? 0;
    };
    const signedInBefore = await auditCount("account.signed_in");
    // The attack of the finding: the password again after every few wrong codes.
    const statuses: number[] = [];
    for (let round = 0; round < 4 && !statuses.includes(429); round++) {
      const attacker = await signInWithPassword(service, "totp-repassword@example.com");
      if (attacker.answer.status === 429) {
        statuses.push(429);
        break;
      }
      for (let i = 0; i < 4; i++) {
        const answer = await attacker.client.post("/dashboard/login/code", {
          challenge: attacker.challenge as string,
          code: String(200000 + round * 10 + i),
        });
        statuses.push(answer.status);
        if (answer.status === 429) break;
      }
    }
    assert.ok(statuses.includes(429), `no 429 after ${statuses.length} tries: ${statuses.join(",")}`);
    assert.ok(statuses.filter((status) => status === 401).length <= 10, statuses.join(","));
    assert.equal(
      await auditCount("account.two_factor_code_failed"),
      statuses.filter((s) => s !== 429).length + 1,
    );
    assert.equal(await auditCount("account.signed_in"), signedInBefore, "no sign-in without a session");
    // Locked, the right code is refused too; once the budget is free again, one sign-in is one entry.
    await service.services.db.query("DELETE FROM password_check_budgets WHERE key LIKE $1", [
      "%totp-repassword@example.com",
    ]);
    const owner = await signInWithPassword(service, "totp-repassword@example.com");
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    const right = await owner.client.post("/dashboard/login/code", {
      challenge: owner.challenge as string,
      code,
    });
    assert.equal(right.status, 303);
    assert.equal((await owner.client.get("/dashboard")).status, 200);
    assert.equal(await auditCount("account.signed_in"), signedInBefore + 1);
  });

  it("shows a pending secret to the session that asked for it only, and turning it on ends the other sessions", async () => {
    const email = "totp-two-sessions@example.com";
    const mine = await signedInUser(service, group, email, "viewer");
    const other = (await signInWithPassword(service, email)).client;
    assert.equal((await other.get("/dashboard")).status, 200, "a second session of the same account");
    const uriOf = async (client: PageClient) =>
      decode(/id="otpauth-uri"[^>]*>([^<]+)</.exec((await client.get("/dashboard/account")).text)?.[1] ?? "");
    const first = await uriOf(mine);
    assert.equal(await uriOf(mine), first, "the same secret on every view of one session");
    const theirs = await uriOf(other);
    assert.notEqual(theirs, first, "another session is not shown this session's secret");
    // This session's key was replaced by the other's view: confirming it fails and changes nothing.
    const stale = OTPAuth.URI.parse(first) as OTPAuth.TOTP;
    await mine.get("/dashboard/account");
    assert.equal((await mine.post("/dashboard/account/two-factor", { code: stale.generate() })).status, 303);
    assert.match((await mine.get("/dashboard/account")).text, /id="otpauth-uri"/);
    // Nor can the other session confirm a secret shown to this one.
    const fresh = OTPAuth.URI.parse(await uriOf(mine)) as OTPAuth.TOTP;
    const hijack = await other.post("/dashboard/account/two-factor", { code: fresh.generate() });
    assert.equal(hijack.status, 303);
    const on = await mine.post("/dashboard/account/two-factor", { code: fresh.generate() });
    assert.equal(on.status, 200);
    assert.match(on.text, /recovery-codes/);
    assert.equal((await mine.get("/dashboard")).status, 200, "this session goes on");
    assert.equal((await other.get("/dashboard")).status, 303, "the session signed in without it has ended");
  });

  it("an owner can require it: a user without it sees only the account page until it is on", async () => {
    const owner = await signedInUser(service, group, "requiring-owner@example.com", "owner");
    await enrol(owner);
    const viewer = await signedInUser(service, group, "must-enrol@example.com", "viewer");
    assert.equal((await viewer.get("/dashboard")).status, 200);
    await owner.get("/dashboard/users");
    assert.equal((await owner.post("/dashboard/users/two-factor", { required: "true" })).status, 303);
    const blocked = await viewer.get("/dashboard/payments");
    assert.equal(blocked.status, 303);
    assert.equal(blocked.location, "/dashboard/account");
    assert.match((await viewer.get("/dashboard/account")).text, /id="two-factor-required"/);
    await enrol(viewer);
    assert.equal((await viewer.get("/dashboard/payments")).status, 200);
    // Required: it cannot be turned off.
    assert.doesNotMatch((await viewer.get("/dashboard/account")).text, /two-factor\/off/);
    await owner.get("/dashboard/users");
    await owner.post("/dashboard/users/two-factor", { required: "false" });
  });

  it("a password reset keeps the second factor", async () => {
    const user = await signedInUser(service, group, "reset-with-totp@example.com", "viewer");
    await enrol(user);
    const reset = await service.admin("POST", "/admin/v1/accounts/password-resets", {
      email: "reset-with-totp@example.com",
      audience: "dashboard",
    });
    const browser = new PageClient(service.url);
    const path = new URL(reset.body.data.resetUrl).pathname;
    await browser.get(path);
    const answer = await browser.post(path, { password: "a brand new password here" });
    assert.equal(answer.status, 200);
    assert.match(answer.text, /name="challenge"/);
    assert.equal((await browser.get("/dashboard")).status, 303);
  });
});

describe("operators required to use two-factor sign-in", () => {
  cheapPasswordHashes();
  let service: TestService;
  before(async () => {
    service = await startTestService({ OPERATORS_REQUIRE_2FA: "true" });
  });
  after(() => service.close());

  it("sends an operator without it to the account page, then lets them in", async () => {
    const operator = await signedInOperator(service, "ops-2fa@example.com");
    const blocked = await operator.get("/operator");
    assert.equal(blocked.status, 303);
    assert.equal(blocked.location, "/operator/account");
    const { totp } = await enrol(operator, "/operator");
    assert.equal((await operator.get("/operator")).status, 200);
    const again = await signInWithPassword(service, "ops-2fa@example.com", "/operator");
    assert.ok(again.challenge);
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    assert.equal(
      (await again.client.post("/operator/login/code", { challenge: again.challenge, code })).status,
      303,
    );
  });
});
