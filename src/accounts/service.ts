import { randomBytes, randomUUID } from "node:crypto";
import { insertAuditEntry, listAuditEntries } from "../audit/store.ts";
import type { Database } from "../db/database.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { UUID_PATTERN } from "../http/schemas.ts";
import { hexDigest } from "../http/secret-hash.ts";
import { findGroupRow } from "../merchants/store.ts";
import { decoyHash, hashPassword, passwordMatches, passwordProblem } from "./password.ts";
import {
  type AccountKind,
  type AccountRow,
  clearSignInFailures,
  countOwnersForUpdate,
  countRecentFailuresFromAddress,
  deleteAccountWebSession,
  deleteOtherWebSessions,
  findAccount,
  findAccountByEmail,
  findOpenInvite,
  findSignInLock,
  insertAccount,
  insertInvite,
  listGroupAccounts,
  listWebSessions,
  type Role,
  recordSignInFailure,
  removeAccount,
  setPasswordHash,
  updateRole,
  useInvite,
} from "./store.ts";

export type { AccountKind, Role } from "./store.ts";
export const ROLES: readonly Role[] = ["owner", "developer", "viewer"];

/** DESIGN §5: single use, 72 hours. */
const INVITE_TTL_SECONDS = 72 * 3600;
/** DESIGN §5: 10 failed sign-ins for one account within 15 minutes lock it for 15 minutes. */
const SIGN_IN_LIMIT = { failures: 10, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
/** Per address, across accounts: enough for an office behind one NAT, not for a password spray. */
const ADDRESS_FAILURE_LIMIT = 100;

/** Who is signed in, as every page sees it. */
export interface Principal {
  accountId: string;
  kind: AccountKind;
  email: string;
  groupId: string | null;
  role: Role | null;
}

export type SignInResult =
  | { outcome: "signed_in"; principal: Principal }
  | { outcome: "wrong_credentials" }
  | { outcome: "throttled"; until: Date };

export interface AuditContext {
  actor: string;
  address: string | null;
}

const toPrincipal = (row: AccountRow): Principal => ({
  accountId: row.id,
  kind: row.kind,
  email: row.email,
  groupId: row.group_id,
  role: row.role,
});

/** The key sign-in throttling counts under: the account as typed, known or not. */
const throttleKey = (kind: AccountKind, email: string) => `${kind}:${email.trim().toLowerCase()}`;

/** Merchant users and operators: invites, passwords, sign-in, sessions and the audit log. */
export class AccountsService {
  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
  ) {}

  /** DESIGN §5: a user of one group with a role, and the single-use link that lets them in. */
  async inviteUser(groupId: string, email: string, role: Role, context: AuditContext) {
    if (!UUID_PATTERN.test(groupId) || !(await findGroupRow(this.db, groupId))) throw notFound("Group");
    const invited = await this.invite("merchant", groupId, email, role, context);
    return { userId: invited.account.id, email: invited.account.email, role, inviteUrl: invited.url };
  }

  async inviteOperator(email: string, context: AuditContext) {
    const invited = await this.invite("operator", null, email, null, context);
    return { operatorId: invited.account.id, email: invited.account.email, inviteUrl: invited.url };
  }

  /** The account an invite link is for, while the link is unused and unexpired. */
  invitedAccount(kind: AccountKind, token: string): Promise<AccountRow | undefined> {
    return findOpenInvite(this.db, kind, hexDigest(token));
  }

  /** Sets the password an invite asks for and uses the invite up; the caller signs the user in. */
  async acceptInvite(
    kind: AccountKind,
    token: string,
    password: string,
    address: string,
  ): Promise<Principal> {
    const problem = passwordProblem(password);
    if (problem) throw new ApiError("INVALID_REQUEST", problem);
    const account = await this.invitedAccount(kind, token);
    if (!account) throw notFound("Invite");
    const passwordHash = await hashPassword(password);
    return this.db.transaction(async (tx) => {
      if (!(await useInvite(tx, hexDigest(token)))) throw notFound("Invite");
      await setPasswordHash(tx, account.id, passwordHash);
      await insertAuditEntry(tx, {
        groupId: account.group_id,
        actor: actorName(kind, account.email),
        action: "account.invite_accepted",
        target: account.id,
        detail: null,
        address,
      });
      return toPrincipal(account);
    });
  }

  /**
   * DESIGN §5: after 10 failures for one account in 15 minutes, sign-in is refused for 15
   * minutes even with the right password. Unknown accounts are throttled and timed the same.
   */
  async signIn(kind: AccountKind, email: string, password: string, address: string): Promise<SignInResult> {
    const key = throttleKey(kind, email);
    const lockedUntil = await findSignInLock(this.db, key);
    if (lockedUntil) return { outcome: "throttled", until: lockedUntil };
    if (
      (await countRecentFailuresFromAddress(this.db, address, SIGN_IN_LIMIT.windowSeconds)) >=
      ADDRESS_FAILURE_LIMIT
    ) {
      return { outcome: "throttled", until: new Date(Date.now() + SIGN_IN_LIMIT.lockSeconds * 1000) };
    }
    const account = await findAccountByEmail(this.db, kind, email.trim());
    const matches = await passwordMatches(password, account?.password_hash ?? (await decoyHash()));
    if (!account?.password_hash || !matches) {
      const locked = await recordSignInFailure(this.db, {
        account: key,
        address,
        limit: SIGN_IN_LIMIT.failures,
        windowSeconds: SIGN_IN_LIMIT.windowSeconds,
        lockSeconds: SIGN_IN_LIMIT.lockSeconds,
      });
      await this.audit(
        account?.group_id ?? null,
        "account.sign_in_failed",
        key,
        locked ? { locked: true } : null,
        { actor: actorName(kind, email.trim()), address },
      );
      return locked ? { outcome: "throttled", until: locked } : { outcome: "wrong_credentials" };
    }
    await clearSignInFailures(this.db, key);
    await this.audit(account.group_id, "account.signed_in", account.id, null, {
      actor: actorName(kind, account.email),
      address,
    });
    return { outcome: "signed_in", principal: toPrincipal(account) };
  }

  /** The signed-in account as it is now: a removed account or a changed role takes effect at once. */
  async principal(accountId: string): Promise<Principal | undefined> {
    const row = UUID_PATTERN.test(accountId) ? await findAccount(this.db, accountId) : undefined;
    return row && toPrincipal(row);
  }

  /** Ends every other session of the account, since whoever knew the old password may hold one. */
  async changePassword(
    principal: Principal,
    current: string,
    next: string,
    keepSessionIdHash: string,
    address: string,
  ): Promise<void> {
    const account = await findAccount(this.db, principal.accountId);
    if (!account?.password_hash || !(await passwordMatches(current, account.password_hash))) {
      throw new ApiError("INVALID_REQUEST", "The current password is not right.");
    }
    const problem = passwordProblem(next);
    if (problem) throw new ApiError("INVALID_REQUEST", problem);
    const passwordHash = await hashPassword(next);
    await this.db.transaction(async (tx) => {
      await setPasswordHash(tx, account.id, passwordHash);
      await deleteOtherWebSessions(tx, account.id, keepSessionIdHash);
    });
    await this.audit(principal.groupId, "account.password_changed", principal.accountId, null, {
      actor: actorOf(principal),
      address,
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
    if (
      !UUID_PATTERN.test(sessionId) ||
      !(await deleteAccountWebSession(this.db, principal.accountId, sessionId))
    ) {
      throw notFound("Session");
    }
    await this.audit(principal.groupId, "session.revoked", sessionId, null, {
      actor: actorOf(principal),
      address,
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
        throw new ApiError("INVALID_REQUEST", "A group keeps at least one owner.");
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
        throw new ApiError("INVALID_REQUEST", "A group keeps at least one owner.");
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
      });
      const existing = inserted ?? (await findAccountByEmail(tx, kind, email.trim()));
      // Sending an invite again is fine until it is accepted, and only within the same group.
      if (!existing || (!inserted && (existing.password_hash !== null || existing.group_id !== groupId))) {
        throw new ApiError("ACCOUNT_EXISTS", `An account with email ${email.trim()} already exists`);
      }
      if (!inserted && role && existing.group_id) await updateRole(tx, existing.group_id, existing.id, role);
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
