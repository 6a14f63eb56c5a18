// Invites: a merchant user of one group with a role, or an operator, and the single-use link that
// lets them choose a password.
import { randomBytes, randomUUID } from "node:crypto";
import { findGroupRow } from "../merchants/store.ts";
import { insertAuditEntry } from "../platform/audit/store.ts";
import { hexDigest } from "../platform/crypto/secret-hash.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { type AuditContext, canonicalEmail, INVITE_TTL_SECONDS, type Principal } from "./principal.ts";
import {
  type AccountKind,
  type AccountRow,
  findAccountByEmail,
  insertAccount,
  type Role,
  setFirstPassword,
  updateRole,
} from "./sql/accounts.ts";
import { findLinkAccount, insertInvite, revokeOpenInvites, useInvite } from "./sql/links.ts";
import { AccountsUseCase } from "./use-case.ts";

export class Invites extends AccountsUseCase {
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
