// Passwords: resets issued by an operator, an owner or "forgot password", and a signed-in
// account's own change.
import { randomBytes } from "node:crypto";
import { insertAuditEntry } from "../platform/audit/store.ts";
import { hexDigest } from "../platform/crypto/secret-hash.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { hashPassword, passwordMatches, passwordProblem } from "./password.ts";
import {
  type AuditContext,
  accountBudget,
  actorName,
  canonicalEmail,
  FORGOT_REQUESTS,
  ownAct,
  type Principal,
  RESET_MAILS_PER_ACCOUNT,
  RESET_TTL_SECONDS,
} from "./principal.ts";
import {
  type AccountKind,
  type AccountRow,
  findAccount,
  findAccountByEmail,
  setPasswordHash,
} from "./sql/accounts.ts";
import { resetPasswordChecks, takePasswordCheck } from "./sql/budgets.ts";
import { findLinkAccount, insertPasswordReset, revokeOpenInvites, useReset } from "./sql/links.ts";
import { deleteAllWebSessions, deleteOtherWebSessions, rebindWebSession } from "./sql/sessions.ts";
import { AccountsUseCase } from "./use-case.ts";

export class Passwords extends AccountsUseCase {
  /** Whether the pages may offer "forgot password" (a link can only reach its owner by e-mail). */
  get mailsLinks(): boolean {
    return this.mailer !== undefined;
  }

  /**
   * A password reset link for the account with this address (single use, one hour;
   * earlier links stop working). Not found when the audience has no such account.
   */
  async issuePasswordReset(kind: AccountKind, email: string, context: AuditContext) {
    const account = await findAccountByEmail(this.db, kind, canonicalEmail(email));
    if (!account) throw notFound("Account");
    return this.resetLinkFor(account, context);
  }

  /** An owner's reset for a user of the group. */
  async issueGroupUserReset(groupId: string, userId: string, context: AuditContext) {
    const account = UUID_PATTERN.test(userId) ? await findAccount(this.db, userId) : undefined;
    if (!account || account.group_id !== groupId) throw notFound("User");
    return this.resetLinkFor(account, context);
  }

  /**
   * "Forgot password" on a login page: e-mails a reset link when the address has an account, and
   * answers the same either way, so the page reveals nothing, not even by its timing: whether
   * there is an account is looked up after the answer. A few per client address per 15 minutes,
   * and at most 3 e-mails per account an hour.
   */
  async requestResetByEmail(kind: AccountKind, email: string, address: string): Promise<void> {
    const budget = await takePasswordCheck(this.db, { key: `forgot:${address}`, ...FORGOT_REQUESTS });
    if (!budget.taken) return;
    this.mailResetIfAccount(kind, email, address).catch((error: Error) => {
      this.log.warn({ reason: error.message }, "could not issue a forgot-password reset link");
    });
  }

  private async mailResetIfAccount(kind: AccountKind, email: string, address: string): Promise<void> {
    const account = await findAccountByEmail(this.db, kind, canonicalEmail(email));
    if (!account) return;
    const perAccount = { key: `reset-mail:${account.id}`, ...RESET_MAILS_PER_ACCOUNT };
    if (!(await takePasswordCheck(this.db, perAccount)).taken) return;
    await this.resetLinkFor(account, { actor: actorName(kind, account.email), address });
  }

  /** The account a reset link is for, while it is unused and unexpired. */
  resetAccount(kind: AccountKind, token: string): Promise<AccountRow | undefined> {
    return findLinkAccount(this.db, "reset", kind, hexDigest(token));
  }

  /**
   * Sets the password a reset link asks for: every session of the account ends (and every
   * other reset and invite link), and the caller signs the user in.
   */
  async completeReset(
    kind: AccountKind,
    token: string,
    password: string,
    address: string,
  ): Promise<Principal> {
    return this.passwordFromLink(
      {
        find: () => this.resetAccount(kind, token),
        what: "Reset link",
        action: "account.password_reset",
        apply: async (tx, account, passwordHash) => {
          if (!(await useReset(tx, hexDigest(token)))) return false;
          await setPasswordHash(tx, account.id, passwordHash);
          await revokeOpenInvites(tx, account.id);
          await deleteAllWebSessions(tx, account.id);
          return true;
        },
      },
      password,
      address,
    );
  }

  private async resetLinkFor(account: AccountRow, context: AuditContext) {
    const token = randomBytes(32).toString("base64url");
    const expiresAt = await this.db.transaction(async (tx) => {
      const expires = await insertPasswordReset(tx, {
        tokenHash: hexDigest(token),
        accountId: account.id,
        ttlSeconds: RESET_TTL_SECONDS,
      });
      await insertAuditEntry(tx, {
        groupId: account.group_id,
        action: "account.password_reset_issued",
        target: account.email,
        detail: null,
        ...context,
      });
      return expires;
    });
    const base = account.kind === "merchant" ? "/dashboard" : "/operator";
    const resetUrl = `${this.publicUrl.replace(/\/$/, "")}${base}/reset/${token}`;
    this.mailLink(account.email, "Reset your password", [
      "Someone (we hope you) asked to reset the password of your account.",
      `Choose a new one here (the link works once, for one hour): ${resetUrl}`,
      "If it was not you, ignore this e-mail: your password stays as it is.",
    ]);
    return { resetUrl, expiresAt: expiresAt.toISOString() };
  }

  /** Ends every other session of the account, since whoever knew the old password may hold one. */
  async changePassword(
    principal: Principal,
    current: string,
    next: string,
    keepSessionIdHash: string,
    address: string,
  ): Promise<void> {
    const problem = passwordProblem(next);
    if (problem) throw new DomainError("INVALID_REQUEST", problem);
    // The same budget as sign-in: a stolen session cannot guess the password either.
    const budget = accountBudget(principal.kind, principal.email);
    const check = await takePasswordCheck(this.db, budget);
    if (!check.taken) {
      const minutes = Math.max(1, Math.ceil((check.until.getTime() - Date.now()) / 60_000));
      throw new DomainError(
        "RATE_LIMIT_EXCEEDED",
        `Too many wrong passwords. Try again in ${minutes} minutes.`,
      );
    }
    const account = await findAccount(this.db, principal.accountId);
    if (!account?.password_hash || !(await passwordMatches(current, account.password_hash))) {
      throw new DomainError("INVALID_REQUEST", "The current password is not right.");
    }
    await resetPasswordChecks(this.db, budget.key);
    const passwordHash = await hashPassword(next);
    await this.db.transaction(async (tx) => {
      await setPasswordHash(tx, account.id, passwordHash);
      // Every other session ends for good (bound to the old password); this one moves to the new.
      await deleteOtherWebSessions(tx, account.id, keepSessionIdHash);
      await rebindWebSession(tx, account.id, keepSessionIdHash);
      await insertAuditEntry(tx, ownAct(principal, "account.password_changed", address));
    });
  }
}
