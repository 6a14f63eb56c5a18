import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

// scrypt at one of OWASP's equal-cost minimums (N=2^15, r=8, p=3): 32 MiB per hash, about a third
// of a second on one core here, off the event loop (libuv's thread pool).
const COST = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { ...cost, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Recovery codes: about 50 random bits each, hashed ten at a time at enrolment, so a lower cost
 * than a password's (16 MiB, some 40 ms here). With a salt per account, an offline pass still
 * costs that much per guess and per account: years for one code, not one pass for every account.
 */
const RECOVERY_COST = { N: 2 ** 14, r: 8, p: 1 };

/** The cost of new hashes. Each stored hash carries its own, so a change breaks none of them. */
let cost = COST;
let recoveryCost = RECOVERY_COST;

/**
 * For test suites only: a cheap cost, so a suite's hundreds of sign-ins do not spend a third of a
 * second of CPU each, until the returned function puts back the cost before it (test files share
 * a process). No setting reaches it: the service never calls it, and a process started from the
 * command line always hashes at the full cost.
 */
export function useCheapPasswordHashesInTests(): () => void {
  const before = { cost, recoveryCost };
  cost = { N: 2 ** 10, r: 8, p: 1 };
  recoveryCost = cost;
  return () => {
    ({ cost, recoveryCost } = before);
  };
}

const encode = (used: typeof COST, salt: Buffer, key: Buffer) =>
  ["scrypt", used.N, used.r, used.p, salt.toString("base64url"), key.toString("base64url")].join("$");

/**
 * The stored forms of an account's recovery codes: one salt for the account's set, so checking a
 * code costs one derivation, whichever of the ten it is.
 */
export async function hashRecoveryCodes(digests: readonly string[]): Promise<string[]> {
  const salt = randomBytes(16);
  const used = recoveryCost;
  return Promise.all(digests.map(async (digest) => encode(used, salt, await derive(digest, salt, used))));
}

/** A code's stored form under the salt and cost of `sibling` (another code of the same set). */
export async function recoveryCodeHashLike(digest: string, sibling: string): Promise<string | null> {
  const [scheme, n, r, p, salt] = sibling.split("$");
  if (scheme !== "scrypt" || !salt) return null;
  const used = { N: Number(n), r: Number(r), p: Number(p) };
  const saltBytes = Buffer.from(salt, "base64url");
  return encode(used, saltBytes, await derive(digest, saltBytes, used));
}

/** "scrypt$N$r$p$salt$hash", so the cost can be raised later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encode(cost, salt, await derive(password, salt, cost));
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let decoy: { cost: typeof COST; hash: Promise<string> } | undefined;
/**
 * A hash to compare against when the account is unknown, so the answer's timing says nothing:
 * made at the cost new hashes are made at.
 */
export const decoyHash = (): Promise<string> => {
  if (decoy?.cost !== cost) decoy = { cost, hash: hashPassword(randomBytes(16).toString("hex")) };
  return decoy.hash;
};

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}
