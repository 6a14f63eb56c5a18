// A group's users: listed, their roles changed, removed; and the audit log they read.
import { insertAuditEntry, listAuditEntries } from "../platform/audit/store.ts";
import { DomainError, notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import type { AuditContext } from "./principal.ts";
import {
  countOwnersForUpdate,
  findAccount,
  listGroupAccounts,
  type Role,
  removeAccount,
  updateRole,
} from "./sql/accounts.ts";
import { AccountsUseCase } from "./use-case.ts";

export class Members extends AccountsUseCase {
  async list(groupId: string) {
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

  async remove(groupId: string, userId: string, context: AuditContext): Promise<void> {
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

  /** Newest first: one group's entries, or (groupId null) every entry for operators. */
  auditLog(groupId: string | null, beforeId: string | null, limit: number) {
    return listAuditEntries(this.db, { groupId, beforeId }, limit);
  }
}
