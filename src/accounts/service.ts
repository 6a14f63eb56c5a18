import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { insertAuditEntry, listAuditEntries } from "../audit/store.ts";
import { hexDigest } from "../crypto/secret-hash.ts";
import type { Database, Queryable } from "../db/database.ts";
import { DomainError, notFound } from "../errors/domain-error.ts";
import { UUID_PATTERN } from "../format/uuid.ts";
import type { Mailer } from "../mail/mailer.ts";
import { findGroupRow } from "../merchants/store.ts";
import { decoyHash, hashPassword, passwordMatches, passwordProblem } from "./password.ts";
import {
  type AccountKind,
  type AccountRow,
  countOwnersForUpdate,
  findAccount,
  findAccountByEmail,
  insertAccount,
  listGroupAccounts,
  type Role,
  removeAccount,
  type SessionAccount,
  setFirstPassword,
  setPasswordHash,
  updateRole,
} from "./sql/accounts.ts";
import { giveBackPasswordCheck, resetPasswordChecks, takePasswordCheck } from "./sql/budgets.ts";
import {
  findLinkAccount,
  insertInvite,
  insertPasswordReset,
  revokeOpenInvites,
  useInvite,
  useReset,
} from "./sql/links.ts";
import {
  deleteAccountWebSession,
  deleteAllWebSessions,
  deleteOtherWebSessions,
  deleteWebSession,
  listWebSessions,
  rebindWebSession,
} from "./sql/sessions.ts";

export type { AccountKind, Role, SessionAccount } from "./sql/accounts.ts";
export const ROLES: readonly Role[] = ["owner", "developer", "viewer"];

/** An invite: single use, 72 hours. */
const INVITE_TTL_SECONDS = 72 * 3600;
/** A password reset: single use, 1 hour. */
const RESET_TTL_SECONDS = 3600;
/** "Forgot password" e-mails per client address: a few, not a mail cannon. */
const FORGOT_REQUESTS = { limit: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
/**
 * Reset e-mails per account asked for by "forgot password", whatever the asking
 * addresses: each one voids the link before it, so a flood would keep its owner from resetting.
 */
const RESET_MAILS_PER_ACCOUNT = { limit: 3, windowSeconds: 3600, lockSeconds: 0 };
/**
 * At most 10 password checks per account in 15 minutes (then 15 minutes locked),
 * however many arrive at once; per client address, across accounts, 100 (enough for an office
 * behind one NAT, not for a password spray). A check that succeeds is given back.
 */
const ACCOUNT_CHECKS = { limit: 10, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
const ADDRESS_CHECKS = { limit: 100, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

/** Who is signed in, as every page sees it. */
export interface Principal {
  accountId: string;
  kind: AccountKind;
  email: string;
  groupId: string | null;
  role: Role | null;
  twoFactorOn: boolean;
  /** The group (or OPERATORS_REQUIRE_2FA) requires a second factor: pages wait until it is on. */
  twoFactorRequired: boolean;
}

export type SignInResult =
  /** A session may be made, after the second factor where the account has one. */
  | { outcome: "password_right"; principal: Principal }
  | { outcome: "wrong_credentials" }
  | { outcome: "throttled"; until: Date };

export interface AuditContext {
  actor: string;
  address: string | null;
}

const toPrincipal = (row: SessionAccount, operatorsRequire2fa: boolean): Principal => ({
  accountId: row.id,
  kind: row.kind,
  email: row.email,
  groupId: row.group_id,
  role: row.role,
  twoFactorOn: row.totp_enabled_at !== null,
  twoFactorRequired: row.kind === "operator" ? operatorsRequire2fa : row.group_requires_two_factor,
});

/**
 * An e-mail address as the service compares it: one account however it is cased or written
 * (NFKC). Look-ups, uniqueness and throttling all use this form, computed here and only here.
 */
export const canonicalEmail = (email: string): string => email.trim().normalize("NFKC").toLowerCase();

/** The budget of password checks an account (known or not) spends from; second factors spend from it too. */
export const accountBudget = (kind: AccountKind, email: string) => ({
  key: `${kind}:${canonicalEmail(email)}`,
  ...ACCOUNT_CHECKS,
});
const addressBudget = (address: string) => ({ key: `address:${address}`, ...ADDRESS_CHECKS });

/** Merchant users and operators: invites, passwords, sign-in, sessions and the audit log. */
export class AccountsService {
  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
    /** With SMTP_URL, invites and resets are also e-mailed; without, links are only shown. */
    private readonly mailer: Mailer | undefined,
    private readonly log: FastifyBaseLogger,
    private readonly operatorsRequire2fa: boolean,
  ) {}

  /** Whether the pages may offer "forgot password" (a link can only reach its owner by e-mail). */
  get mailsLinks(): boolean {
    return this.mailer !== undefined;
  }

  /** A user of one group with a role, and the single-use link that lets them in. */
  async inviteUser(groupId: string, email: string, role: Role, context: AuditContext) {
    if (!UUID_PATTERN.test(groupId) || !(await findGroupRow(this.db, groupId))) throw notFound("Group");
    const invited = await this.invite("merchant", groupId, email, role, context);
    this.mailLink(invited.account.email, "You are invited to the merchant dashboard", [
      `You were invited to the merchant dashboard as ${role}.`,
      `Choose a password here (the link works once, for 72 hours): ${invited.url}`,
    ]);
    return { userId: invited.account.id, email: invited.account.email, role, inviteUrl: invited.url };
  }

  async inviteOperator(email: string, context: AuditContext) {
    const invited = await this.invite("operator", null, email, null, context);
    this.mailLink(invited.account.email, "You are invited to the operator console", [
      "You were invited to the operator console.",
      `Choose a password here (the link works once, for 72 hours): ${invited.url}`,
    ]);
    return { operatorId: invited.account.id, email: invited.account.email, inviteUrl: invited.url };
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

  /**
   * A password from an invite or reset link: checked, hashed, then `apply`d with the audit entry
   * in one transaction; a link that stopped working meanwhile is not found.
   */
  private async passwordFromLink(
    link: {
      find: () => Promise<AccountRow | undefined>;
      what: string;
      action: string;
      apply: (tx: Queryable, account: AccountRow, passwordHash: string) => Promise<boolean>;
    },
    password: string,
    address: string,
  ): Promise<Principal> {
    const problem = passwordProblem(password);
    if (problem) throw new DomainError("INVALID_REQUEST", problem);
    const account = await link.find();
    if (!account) throw notFound(link.what);
    const passwordHash = await hashPassword(password);
    return this.db.transaction(async (tx) => {
      if (!(await link.apply(tx, account, passwordHash))) throw notFound(link.what);
      await insertAuditEntry(tx, {
        groupId: account.group_id,
        actor: actorName(account.kind, account.email),
        action: link.action,
        target: account.id,
        detail: null,
        address,
      });
      return toPrincipal(account, this.operatorsRequire2fa);
    });
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

  /** E-mails a link when SMTP is configured; a mail that cannot be sent is logged, not thrown. */
  private mailLink(to: string, subject: string, lines: string[]): void {
    if (!this.mailer) return;
    this.mailer.send({ to, subject, text: `${lines.join("\n\n")}\n` }).catch((error: Error) => {
      this.log.warn({ reason: error.message }, "could not e-mail a link (it was still issued)");
    });
  }

  /** The account an invite link is for, while the link is unused and unexpired. */
  invitedAccount(kind: AccountKind, token: string): Promise<AccountRow | undefined> {
    return findLinkAccount(this.db, "invite", kind, hexDigest(token));
  }

  /** Sets the password an invite asks for and uses the invite up; the caller signs the user in. */
  acceptInvite(kind: AccountKind, token: string, password: string, address: string): Promise<Principal> {
    return this.passwordFromLink(
      {
        find: () => this.invitedAccount(kind, token),
        what: "Invite",
        action: "account.invite_accepted",
        apply: async (tx, account, passwordHash) => {
          if (!(await useInvite(tx, hexDigest(token)))) return false;
          // Only an account without a password takes one from an invite; every other link dies.
          if (!(await setFirstPassword(tx, account.id, passwordHash))) return false;
          await revokeOpenInvites(tx, account.id);
          return true;
        },
      },
      password,
      address,
    );
  }

  /**
   * The account's and the address's budgets are taken before the password is
   * checked, in one statement each, so parallel guesses get no more checks than the limit; past
   * it, sign-in is refused even with the right password. Unknown accounts are throttled and timed
   * the same.
   */
  async signIn(kind: AccountKind, email: string, password: string, address: string): Promise<SignInResult> {
    const account = accountBudget(kind, email);
    const accountCheck = await takePasswordCheck(this.db, account);
    if (!accountCheck.taken) return { outcome: "throttled", until: accountCheck.until };
    const fromAddress = addressBudget(address);
    const addressCheck = await takePasswordCheck(this.db, fromAddress);
    if (!addressCheck.taken) {
      await giveBackPasswordCheck(this.db, account.key, account.limit);
      return { outcome: "throttled", until: addressCheck.until };
    }
    const row = await findAccountByEmail(this.db, kind, canonicalEmail(email));
    const matches = await passwordMatches(password, row?.password_hash ?? (await decoyHash()));
    if (!row?.password_hash || !matches) {
      await this.audit(
        row?.group_id ?? null,
        "account.sign_in_failed",
        account.key,
        accountCheck.last ? { locked: true } : null,
        { actor: actorName(kind, email.trim()), address },
      );
      // The failure that used the account's last check locks it from now on.
      if (accountCheck.last) {
        return { outcome: "throttled", until: new Date(Date.now() + account.lockSeconds * 1000) };
      }
      return { outcome: "wrong_credentials" };
    }
    await giveBackPasswordCheck(this.db, fromAddress.key, fromAddress.limit);
    // The account's budget starts again only when a session is made: with a second factor, the
    // password alone gives back its own check and leaves the wrong codes counted.
    if (row.totp_enabled_at === null) await resetPasswordChecks(this.db, account.key);
    else await giveBackPasswordCheck(this.db, account.key, account.limit);
    return { outcome: "password_right", principal: toPrincipal(row, this.operatorsRequire2fa) };
  }

  /** The signed-in account as it is now: a removed account or a changed role takes effect at once. */
  async principal(accountId: string): Promise<Principal | undefined> {
    const row = UUID_PATTERN.test(accountId) ? await findAccount(this.db, accountId) : undefined;
    return row && toPrincipal(row, this.operatorsRequire2fa);
  }

  /** The same, from the account read with the request's session (`findWebSession`). */
  principalOf(account: SessionAccount): Principal {
    return toPrincipal(account, this.operatorsRequire2fa);
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
      await insertAuditEntry(tx, {
        groupId: principal.groupId,
        action: "account.password_changed",
        target: principal.accountId,
        detail: null,
        actor: actorOf(principal),
        address,
      });
    });
  }

  async sessions(principal: Principal, currentIdHash: string) {
    const rows = await listWebSessions(this.db, principal.accountId);
    return rows.map((row) => ({
      id: row.id,
      address: row.address,
      userAgent: row.user_agent,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      current: row.id_hash === currentIdHash,
    }));
  }

  async revokeSession(principal: Principal, sessionId: string, address: string): Promise<void> {
    if (!UUID_PATTERN.test(sessionId)) throw notFound("Session");
    await this.db.transaction(async (tx) => {
      if (!(await deleteAccountWebSession(tx, principal.accountId, sessionId))) throw notFound("Session");
      await insertAuditEntry(tx, {
        groupId: principal.groupId,
        action: "session.revoked",
        target: sessionId,
        detail: null,
        actor: actorOf(principal),
        address,
      });
    });
  }

  /** Signing out ends the session in the database, with its audit entry, in one transaction. */
  async signOut(principal: Principal, sessionIdHash: string, address: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await deleteWebSession(tx, sessionIdHash);
      await insertAuditEntry(tx, {
        groupId: principal.groupId,
        action: "account.signed_out",
        target: principal.accountId,
        detail: null,
        actor: actorOf(principal),
        address,
      });
    });
  }

  async groupUsers(groupId: string) {
    const rows = await listGroupAccounts(this.db, groupId);
    return rows.map((row) => ({
      userId: row.id,
      email: row.email,
      role: row.role as Role,
      pending: row.password_hash === null,
      createdAt: row.created_at,
    }));
  }

  /** A group always keeps an owner: the last one can be neither demoted nor removed. */
  async changeRole(groupId: string, userId: string, role: Role, context: AuditContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const target = UUID_PATTERN.test(userId) ? await findAccount(tx, userId) : undefined;
      if (!target || target.group_id !== groupId) throw notFound("User");
      if (target.role === "owner" && role !== "owner" && (await countOwnersForUpdate(tx, groupId)) <= 1) {
        throw new DomainError("INVALID_REQUEST", "A group keeps at least one owner.");
      }
      await updateRole(tx, groupId, userId, role);
      await insertAuditEntry(tx, {
        groupId,
        action: "user.role_changed",
        target: target.email,
        detail: { role },
        ...context,
      });
    });
  }

  async removeUser(groupId: string, userId: string, context: AuditContext): Promise<void> {
    await this.db.transaction(async (tx) => {
      const target = UUID_PATTERN.test(userId) ? await findAccount(tx, userId) : undefined;
      if (!target || target.group_id !== groupId) throw notFound("User");
      if (target.role === "owner" && (await countOwnersForUpdate(tx, groupId)) <= 1) {
        throw new DomainError("INVALID_REQUEST", "A group keeps at least one owner.");
      }
      await removeAccount(tx, groupId, userId);
      await insertAuditEntry(tx, {
        groupId,
        action: "user.removed",
        target: target.email,
        detail: null,
        ...context,
      });
    });
  }

  audit(
    groupId: string | null,
    action: string,
    target: string | null,
    detail: unknown,
    context: AuditContext,
  ): Promise<void> {
    return insertAuditEntry(this.db, { groupId, action, target, detail, ...context });
  }

  /** Newest first: one group's entries, or (groupId null) every entry for operators. */
  auditLog(groupId: string | null, beforeId: string | null, limit: number) {
    return listAuditEntries(this.db, { groupId, beforeId }, limit);
  }

  private async invite(
    kind: AccountKind,
    groupId: string | null,
    email: string,
    role: Role | null,
    context: AuditContext,
  ): Promise<{ account: AccountRow; url: string }> {
    const token = randomBytes(32).toString("base64url");
    const account = await this.db.transaction(async (tx) => {
      const inserted = await insertAccount(tx, {
        id: randomUUID(),
        kind,
        groupId,
        role,
        email: email.trim(),
        emailCanonical: canonicalEmail(email),
      });
      const existing = inserted ?? (await findAccountByEmail(tx, kind, canonicalEmail(email)));
      // Sending an invite again is fine until it is accepted, and only within the same group.
      if (!existing || (!inserted && (existing.password_hash !== null || existing.group_id !== groupId))) {
        throw new DomainError("ACCOUNT_EXISTS", `An account with email ${email.trim()} already exists`);
      }
      if (!inserted && role && existing.group_id) await updateRole(tx, existing.group_id, existing.id, role);
      // One open invite per account: a new one revokes the links sent before.
      await revokeOpenInvites(tx, existing.id);
      await insertInvite(tx, {
        tokenHash: hexDigest(token),
        accountId: existing.id,
        ttlSeconds: INVITE_TTL_SECONDS,
      });
      await insertAuditEntry(tx, {
        groupId,
        action: kind === "merchant" ? "user.invited" : "operator.invited",
        target: existing.email,
        detail: role ? { role } : null,
        ...context,
      });
      return { ...existing, role: role ?? existing.role };
    });
    const base = kind === "merchant" ? "/dashboard" : "/operator";
    return { account, url: `${this.publicUrl.replace(/\/$/, "")}${base}/invite/${token}` };
  }
}

/** How an account is named in the audit log: `user:EMAIL` or `operator:EMAIL`. */
const actorName = (kind: AccountKind, email: string): string =>
  `${kind === "merchant" ? "user" : "operator"}:${email}`;

export const actorOf = (principal: Principal): string => actorName(principal.kind, principal.email);
