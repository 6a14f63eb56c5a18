import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hashPassword, passwordMatches, passwordProblem } from "../../src/accounts/password.ts";

describe("password hashing", () => {
  it("hashes with scrypt at N=2^15, r=8, p=3 and a fresh salt, and recognises only the password", async () => {
    const first = await hashPassword("correct horse battery staple");
    const second = await hashPassword("correct horse battery staple");
    assert.match(first, /^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first, second, "each hash has its own salt");
    assert.equal(await passwordMatches("correct horse battery staple", first), true);
    assert.equal(await passwordMatches("correct horse battery stapler", first), false);
    assert.equal(await passwordMatches("correct horse battery staple", "plain text"), false);
  });

  it("checks a stored hash at the cost it records", async () => {
    const stored = await hashPassword("a stored password");
    const [, , , , salt, key] = stored.split("$");
    assert.equal(await passwordMatches("a stored password", `scrypt$32768$8$3$${salt}$${key}`), true);
    assert.equal(await passwordMatches("a stored password", `scrypt$16384$8$3$${salt}$${key}`), false);
  });

  it("refuses passwords shorter than 12 or longer than 256 characters", () => {
    assert.match(passwordProblem("short") ?? "", /at least 12/);
    assert.match(passwordProblem("x".repeat(257)) ?? "", /at most 256/);
    assert.equal(passwordProblem("x".repeat(12)), null);
  });
});
