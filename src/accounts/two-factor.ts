// Two-factor sign-in: TOTP (RFC 6238: 6 digits, 30 s, SHA-1, as every authenticator
// app reads it) with ten single-use recovery codes. The secret is sealed at rest; codes are
// checked against the account's password-check budget, and a code is never accepted twice.
import { randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import { insertAuditEntry } from "../platform/audit/store.ts";
import type { SecretBox } from "../platform/crypto/secret-box.ts";
import { hexDigest } from "../platform/crypto/secret-hash.ts";
import type { Database } from "../platform/db/database.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { hashRecoveryCodes, recoveryCodeHashLike } from "./password.ts";
import { type AuditContext, accountBudget, ownAct, type Principal } from "./principal.ts";
import { findAccount } from "./sql/accounts.ts";
import { resetPasswordChecks, takePasswordCheck } from "./sql/budgets.ts";
import { deleteOtherWebSessions } from "./sql/sessions.ts";
import {
  acceptStep,
  anyUnusedRecoveryCode,
  deleteChallenge,
  disableTotp,
  enableTotp,
  findChallenge,
  findTwoFactor,
  insertChallenge,
  listTotpSecrets,
  listUnsaltedRecoveryCodes,
  offerPendingSecret,
  replaceRecoveryCodeHash,
  replaceRecoveryCodes,
  replaceTotpSecrets,
  setGroupRequiresTwoFactor,
  useRecoveryCode,
} from "./two-factor-store.ts";

const PERIOD_SECONDS = 30;
const RECOVERY_CODES = 10;
/** The second form waits this long after the right password. */
const CHALLENGE_SECONDS = 5 * 60;

export type CodeCheck =
  | { outcome: "accepted" }
  | { outcome: "wrong" }
  | { outcome: "throttled"; until: Date };

/** "xxxx-xxxx-xx": 10 characters of an alphabet without look-alikes, grouped for reading aloud. */
function recoveryCode(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const chars = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
}
const normalisedCode = (code: string) => code.trim().toLowerCase().replace(/\s+/g, "");
/** A normalised recovery code's shape: anything else is not looked up (a hash costs some 40 ms). */
const RECOVERY_CODE_SHAPE = /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{2}$/;
/** What a recovery code's slow hash is taken of (also all that codes stored before salting kept). */
const recoveryDigest = (code: string) => hexDigest(normalisedCode(code));

export class TwoFactorService {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    /** Shown in authenticator apps: the service's own host. */
    private readonly issuer: string,
  ) {}

  private totp(principal: Principal, base32Secret: string) {
    return new OTPAuth.TOTP({
      issuer: this.issuer,
      label: principal.email,
      algorithm: "SHA1",
      digits: 6,
      period: PERIOD_SECONDS,
      secret: OTPAuth.Secret.fromBase32(base32Secret),
    });
  }

  /**
   * While it is off: the otpauth URI of the secret the account page offers this session (the same
   * on every view in it; another session of the account is offered another).
   */
  async enrolment(principal: Principal, sessionIdHash: string): Promise<{ uri: string } | null> {
    if (principal.twoFactorOn) return null;
    const offered = new OTPAuth.Secret({ size: 20 }).base32;
    const sealed = await offerPendingSecret(
      this.db,
      principal.accountId,
      sessionIdHash,
      this.box.seal(offered),
    );
    if (!sealed) return null;
    return { uri: this.totp(principal, this.box.open(sealed)).toString() };
  }

  /**
   * Confirms the secret offered to this session with a current code: two-factor is on, every other
   * session of the account ends (it was signed in with the password alone), and the recovery
   * codes are shown once.
   */
  async confirm(
    principal: Principal,
    code: string,
    address: string,
    sessionIdHash: string,
  ): Promise<string[]> {
    const state = await findTwoFactor(this.db, principal.accountId);
    if (state?.totp_enabled_at) throw new DomainError("INVALID_REQUEST", "Two-factor sign-in is already on.");
    const pending = state?.totp_pending_session === sessionIdHash ? state.totp_pending_secret : null;
    if (!pending) {
      throw new DomainError(
        "INVALID_REQUEST",
        "The key shown here was replaced (the account page was opened elsewhere). Scan the new one.",
      );
    }
    const step = this.stepOf(principal, this.box.open(pending), code);
    if (step === null)
      throw new DomainError("INVALID_REQUEST", "That code is not right. Enter the code your app shows now.");
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    const hashes = await hashRecoveryCodes(codes.map(recoveryDigest));
    await this.db.transaction(async (tx) => {
      if (!(await enableTotp(tx, principal.accountId, sessionIdHash, pending, step)))
        throw new DomainError("INVALID_REQUEST", "The key shown here was replaced. Scan the new one.");
      await deleteOtherWebSessions(tx, principal.accountId, sessionIdHash);
      await replaceRecoveryCodes(tx, principal.accountId, hashes);
      await insertAuditEntry(tx, ownAct(principal, "account.two_factor_enabled", address));
    });
    return codes;
  }

  /** Turns it off with a current code (or a recovery code); not while the group requires it. */
  async disable(principal: Principal, code: string, address: string): Promise<void> {
    if (principal.twoFactorRequired)
      throw new DomainError("INVALID_REQUEST", "Two-factor sign-in is required here.");
    const check = await this.checkCode(principal, code, address);
    if (check.outcome === "throttled")
      throw new DomainError("RATE_LIMIT_EXCEEDED", "Too many wrong codes. Try again later.");
    if (check.outcome === "wrong") throw new DomainError("INVALID_REQUEST", "That code is not right.");
    await this.db.transaction(async (tx) => {
      await disableTotp(tx, principal.accountId);
      await insertAuditEntry(tx, ownAct(principal, "account.two_factor_disabled", address));
    });
  }

  /** After the right password: the token the second form carries. */
  async startChallenge(principal: Principal): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    await insertChallenge(this.db, {
      tokenHash: hexDigest(token),
      accountId: principal.accountId,
      ttlSeconds: CHALLENGE_SECONDS,
    });
    return token;
  }

  /** The account waiting at the second form, while its challenge is open. */
  async challenged(token: string, principalOf: (accountId: string) => Promise<Principal | undefined>) {
    const accountId = await findChallenge(this.db, hexDigest(token));
    return accountId ? principalOf(accountId) : undefined;
  }

  /** The second factor: a current code or an unused recovery code; the challenge is used up when it passes. */
  async completeChallenge(
    token: string,
    principal: Principal,
    code: string,
    address: string,
  ): Promise<CodeCheck> {
    const check = await this.checkCode(principal, code, address);
    if (check.outcome !== "accepted") return check;
    if (!(await deleteChallenge(this.db, hexDigest(token)))) throw notFound("Sign-in");
    return check;
  }

  /** An owner requires two-factor sign-in for the group's users. */
  async setGroupRequirement(groupId: string, required: boolean, context: AuditContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      await setGroupRequiresTwoFactor(tx, groupId, required);
      await insertAuditEntry(tx, {
        groupId,
        action: required ? "group.two_factor_required" : "group.two_factor_optional",
        target: groupId,
        detail: null,
        ...context,
      });
    });
  }

  /** Seals every two-factor secret with the current key (after SECRETS_KEY gained a new one). */
  async resealSecrets(): Promise<number> {
    let resealed = 0;
    const reseal = (value: string | null) => (value === null ? null : this.box.seal(this.box.reveal(value)));
    for (const row of await listTotpSecrets(this.db)) {
      const stale = [row.totp_secret, row.totp_pending_secret].some(
        (value) => value !== null && !this.box.isCurrent(value),
      );
      if (!stale) continue;
      const was = { secret: row.totp_secret, pending: row.totp_pending_secret };
      const sealed = { secret: reseal(row.totp_secret), pending: reseal(row.totp_pending_secret) };
      if (await replaceTotpSecrets(this.db, row.id, was, sealed)) resealed++;
    }
    return resealed;
  }

  /**
   * A code against the account's budget: at most 10 guesses per 15 minutes, shared with passwords.
   * Each wrong code is audited.
   */
  private async checkCode(principal: Principal, code: string, address: string): Promise<CodeCheck> {
    const budget = accountBudget(principal.kind, principal.email);
    const taken = await takePasswordCheck(this.db, budget);
    if (!taken.taken) return { outcome: "throttled", until: taken.until };
    const account = await findAccount(this.db, principal.accountId);
    const state = await findTwoFactor(this.db, principal.accountId);
    if (!account || !state?.totp_secret) return { outcome: "wrong" };
    const step = this.stepOf(principal, this.box.open(state.totp_secret), code);
    const accepted =
      step !== null
        ? await acceptStep(this.db, principal.accountId, step)
        : await this.useRecoveryCode(principal.accountId, code);
    if (!accepted) {
      await insertAuditEntry(
        this.db,
        ownAct(principal, "account.two_factor_code_failed", address, {
          detail: taken.last ? { locked: true } : null,
        }),
      );
      return taken.last
        ? { outcome: "throttled", until: new Date(Date.now() + budget.lockSeconds * 1000) }
        : { outcome: "wrong" };
    }
    await resetPasswordChecks(this.db, budget.key);
    return { outcome: "accepted" };
  }

  /** One unused recovery code of the account used up; false when `code` is none of them. */
  private async useRecoveryCode(accountId: string, code: string): Promise<boolean> {
    if (!RECOVERY_CODE_SHAPE.test(normalisedCode(code))) return false;
    const sibling = await anyUnusedRecoveryCode(this.db, accountId);
    const hash = sibling && (await recoveryCodeHashLike(recoveryDigest(code), sibling));
    return Boolean(hash) && (await useRecoveryCode(this.db, accountId, hash as string));
  }

  /**
   * Recovery codes stored before salting kept a bare SHA-256 digest: each is hashed again, slowly
   * and with a salt per account, so an offline pass can no longer crack every account's codes.
   */
  async saltRecoveryCodes(): Promise<number> {
    let salted = 0;
    for (const row of await listUnsaltedRecoveryCodes(this.db)) {
      const hashes = await hashRecoveryCodes(row.code_hashes);
      for (const [i, was] of row.code_hashes.entries()) {
        await replaceRecoveryCodeHash(this.db, row.account_id, was, hashes[i] as string);
      }
      salted++;
    }
    return salted;
  }

  /** The 30-second step a 6-digit code is valid for (one step of clock drift either way), or null. */
  private stepOf(principal: Principal, base32Secret: string, code: string): number | null {
    const token = code.replace(/\s+/g, "");
    if (!/^\d{6}$/.test(token)) return null;
    const delta = this.totp(principal, base32Secret).validate({ token, window: 1 });
    return delta === null ? null : Math.floor(Date.now() / 1000 / PERIOD_SECONDS) + delta;
  }
}
