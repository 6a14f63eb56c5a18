// A signed-in account's sessions: listed, ended one by one, or ended by signing out.
import { insertAuditEntry } from "../platform/audit/store.ts";
import { notFound } from "../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { ownAct, type Principal } from "./principal.ts";
import { deleteAccountWebSession, deleteWebSession, listWebSessions } from "./sql/sessions.ts";
import { AccountsUseCase } from "./use-case.ts";

export class Sessions extends AccountsUseCase {
  async list(principal: Principal, currentIdHash: string) {
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

  async revoke(principal: Principal, sessionId: string, address: string): Promise<void> {
    if (!UUID_PATTERN.test(sessionId)) throw notFound("Session");
    await this.db.transaction(async (tx) => {
      if (!(await deleteAccountWebSession(tx, principal.accountId, sessionId))) throw notFound("Session");
      await insertAuditEntry(tx, ownAct(principal, "session.revoked", address, { target: sessionId }));
    });
  }

  /** Signing out ends the session in the database, with its audit entry, in one transaction. */
  async signOut(principal: Principal, sessionIdHash: string, address: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await deleteWebSession(tx, sessionIdHash);
      await insertAuditEntry(tx, ownAct(principal, "account.signed_out", address));
    });
  }
}
