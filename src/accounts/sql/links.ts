// Single-use links: invites and password resets, kept as digests of their tokens.
import type { Queryable } from "../../platform/db/database.ts";
import { type AccountKind, type AccountRow, accountColumns } from "./accounts.ts";

/** Every invite of the account not used yet stops working (a new one was sent, or one was used). */
export async function revokeOpenInvites(q: Queryable, accountId: string): Promise<void> {
  await q.query("UPDATE account_invites SET used_at = now() WHERE account_id = $1 AND used_at IS NULL", [
    accountId,
  ]);
}

export async function insertInvite(
  q: Queryable,
  invite: { tokenHash: string; accountId: string; ttlSeconds: number },
): Promise<void> {
  await q.query(
    `INSERT INTO account_invites (token_hash, account_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [invite.tokenHash, invite.accountId, invite.ttlSeconds],
  );
}

/** Links that set a password: an invite sets the first one only; a reset replaces it. */
const LINK_QUERIES = {
  invite: `SELECT ${accountColumns("a.")}
     FROM account_invites l JOIN accounts a ON a.id = l.account_id
     WHERE l.token_hash = $1 AND a.kind = $2 AND l.used_at IS NULL AND l.expires_at > now()
       AND a.removed_at IS NULL AND a.password_hash IS NULL`,
  reset: `SELECT ${accountColumns("a.")}
     FROM password_resets l JOIN accounts a ON a.id = l.account_id
     WHERE l.token_hash = $1 AND a.kind = $2 AND l.used_at IS NULL AND l.expires_at > now()
       AND a.removed_at IS NULL`,
};

/** The account an unused, unexpired invite or reset link is for. */
export async function findLinkAccount(
  q: Queryable,
  link: keyof typeof LINK_QUERIES,
  kind: AccountKind,
  tokenHash: string,
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(LINK_QUERIES[link], [tokenHash, kind]);
  return row;
}

/** Marks an invite used; false when another request used it first. */
export async function useInvite(q: Queryable, tokenHash: string): Promise<boolean> {
  const rows = await q.query(
    "UPDATE account_invites SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING token_hash",
    [tokenHash],
  );
  return rows.length === 1;
}

/** A new reset link for the account; earlier ones stop working. Its expiry. */
export async function insertPasswordReset(
  q: Queryable,
  reset: { tokenHash: string; accountId: string; ttlSeconds: number },
): Promise<Date> {
  await q.query("UPDATE password_resets SET used_at = now() WHERE account_id = $1 AND used_at IS NULL", [
    reset.accountId,
  ]);
  const [row] = await q.query<{ expires_at: Date }>(
    `INSERT INTO password_resets (token_hash, account_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
    [reset.tokenHash, reset.accountId, reset.ttlSeconds],
  );
  return (row as { expires_at: Date }).expires_at;
}

/** Uses a reset link up, and every other open link of the account with it; false when it was not open. */
export async function useReset(q: Queryable, tokenHash: string): Promise<boolean> {
  const rows = await q.query<{ account_id: string }>(
    `UPDATE password_resets SET used_at = now()
     WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING account_id`,
    [tokenHash],
  );
  const accountId = rows[0]?.account_id;
  if (!accountId) return false;
  await q.query("UPDATE password_resets SET used_at = now() WHERE account_id = $1 AND used_at IS NULL", [
    accountId,
  ]);
  return true;
}
