// The audit log: every action taken through the pages and the admin API, written in the same
// transaction as the change it records wherever the change is one.
import type { Database, Queryable } from "../db/database.ts";
import { deleteOldestBefore } from "../db/prune.ts";

/** Who did what, to what, from where. */
export interface AuditEntry {
  groupId: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: unknown;
  address: string | null;
}

/** The entry an action's result calls for, or null when it changed nothing. */
export type Audit<T> = (result: T) => AuditEntry | null;

/** Runs `work`, and with `audit` writes its entry in the same transaction. */
export async function withAudit<T>(
  db: Database,
  audit: Audit<T> | undefined,
  work: (q: Queryable) => Promise<T>,
): Promise<T> {
  if (!audit) return work(db);
  return db.transaction(async (tx) => {
    const result = await work(tx);
    const entry = audit(result);
    if (entry) await insertAuditEntry(tx, entry);
    return result;
  });
}

export interface AuditRow {
  id: string;
  group_id: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: unknown;
  address: string | null;
  created_at: Date;
}

export async function insertAuditEntry(q: Queryable, entry: AuditEntry): Promise<void> {
  await q.query(
    "INSERT INTO audit_log (group_id, actor, action, target, detail, address) VALUES ($1, $2, $3, $4, $5, $6)",
    [
      entry.groupId,
      entry.actor,
      entry.action,
      entry.target,
      entry.detail === undefined ? null : JSON.stringify(entry.detail),
      entry.address,
    ],
  );
}

/**
 * Newest first; one group's, or every entry for operators; keyset on id. The id is answered as
 * text (a bigint), so ORDER BY names the column, never the text alias, or 100 would sort before 92.
 */
export function listAuditEntries(
  q: Queryable,
  filter: { groupId: string | null; beforeId: string | null },
  limit: number,
): Promise<AuditRow[]> {
  return q.query<AuditRow>(
    `SELECT id::text, group_id, actor, action, target, detail, address, created_at FROM audit_log
     WHERE ($1::uuid IS NULL OR group_id = $1) AND ($2::bigint IS NULL OR audit_log.id < $2)
     ORDER BY audit_log.id DESC LIMIT $3`,
    [filter.groupId, filter.beforeId, limit],
  );
}

/** An entry for a change made through the merchant API, with one of the group's API keys. */
export const byApiKey = (
  request: { ip: string; merchant: { groupId: string; publicKey: string } },
  action: string,
  target: string | null,
  detail: unknown = null,
): AuditEntry => ({
  groupId: request.merchant.groupId,
  actor: `api_key:${request.merchant.publicKey}`,
  action,
  target,
  detail,
  address: request.ip,
});

/** An entry for a change made with the admin token (admin API, CLI). */
export const byAdminToken = (
  request: { ip: string },
  groupId: string | null,
  action: string,
  target: string | null,
  detail: unknown = null,
): AuditEntry => ({ groupId, actor: "admin-token", action, target, detail, address: request.ip });

/** One batch of entries written before `before`, oldest first. */
export const deleteAuditEntriesBefore = (q: Queryable, before: Date, limit: number): Promise<number> =>
  deleteOldestBefore(q, { table: "audit_log", key: "id, created_at", time: "created_at" }, before, limit);
