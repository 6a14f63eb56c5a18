// Every statement on accounts, invites, page sessions, sign-in throttling and the audit log.
import type { Queryable } from "../db/database.ts";

export type AccountKind = "merchant" | "operator";
export type Role = "owner" | "developer" | "viewer";

export interface AccountRow {
  id: string;
  kind: AccountKind;
  group_id: string | null;
  role: Role | null;
  email: string;
  password_hash: string | null;
  created_at: Date;
}

const ACCOUNT_COLUMNS = "id, kind, group_id, role, email, password_hash, created_at";

/** A new account, or the existing one when an invite is sent again to someone not yet signed up. */
export async function insertAccount(
  q: Queryable,
  account: { id: string; kind: AccountKind; groupId: string | null; role: Role | null; email: string },
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `INSERT INTO accounts (id, kind, group_id, role, email) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (kind, lower(email)) WHERE removed_at IS NULL DO NOTHING
     RETURNING ${ACCOUNT_COLUMNS}`,
    [account.id, account.kind, account.groupId, account.role, account.email],
  );
  return row;
}

export async function findAccountByEmail(
  q: Queryable,
  kind: AccountKind,
  email: string,
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE kind = $1 AND lower(email) = lower($2) AND removed_at IS NULL`,
    [kind, email],
  );
  return row;
}

export async function findAccount(q: Queryable, id: string): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1 AND removed_at IS NULL`,
    [id],
  );
  return row;
}

export function listGroupAccounts(q: Queryable, groupId: string): Promise<AccountRow[]> {
  return q.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE group_id = $1 AND removed_at IS NULL ORDER BY created_at, id`,
    [groupId],
  );
}

export async function setPasswordHash(q: Queryable, accountId: string, passwordHash: string): Promise<void> {
  await q.query("UPDATE accounts SET password_hash = $2 WHERE id = $1", [accountId, passwordHash]);
}

export async function updateRole(
  q: Queryable,
  groupId: string,
  accountId: string,
  role: Role,
): Promise<boolean> {
  const rows = await q.query(
    "UPDATE accounts SET role = $3 WHERE id = $1 AND group_id = $2 AND removed_at IS NULL RETURNING id",
    [accountId, groupId, role],
  );
  return rows.length === 1;
}

/** Removes a group's account and ends its sessions and invites in the same statement batch. */
export async function removeAccount(q: Queryable, groupId: string, accountId: string): Promise<boolean> {
  const rows = await q.query(
    "UPDATE accounts SET removed_at = now() WHERE id = $1 AND group_id = $2 AND removed_at IS NULL RETURNING id",
    [accountId, groupId],
  );
  if (rows.length === 0) return false;
  await q.query("DELETE FROM web_sessions WHERE account_id = $1", [accountId]);
  await q.query("UPDATE account_invites SET used_at = now() WHERE account_id = $1 AND used_at IS NULL", [
    accountId,
  ]);
  return true;
}

/** Owners left in a group, locked so two concurrent demotions cannot both pass the check. */
export async function countOwnersForUpdate(q: Queryable, groupId: string): Promise<number> {
  const rows = await q.query(
    "SELECT id FROM accounts WHERE group_id = $1 AND role = 'owner' AND removed_at IS NULL FOR UPDATE",
    [groupId],
  );
  return rows.length;
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

/** The account an unused, unexpired invite is for. */
export async function findOpenInvite(
  q: Queryable,
  kind: AccountKind,
  tokenHash: string,
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `SELECT a.id, a.kind, a.group_id, a.role, a.email, a.password_hash, a.created_at
     FROM account_invites i JOIN accounts a ON a.id = i.account_id
     WHERE i.token_hash = $1 AND a.kind = $2 AND i.used_at IS NULL AND i.expires_at > now()
       AND a.removed_at IS NULL`,
    [tokenHash, kind],
  );
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

export interface WebSessionRow {
  id: string;
  account_id: string;
  address: string;
  user_agent: string;
  created_at: Date;
  expires_at: Date;
}

export async function upsertWebSession(
  q: Queryable,
  session: {
    id: string;
    idHash: string;
    accountId: string;
    data: string;
    address: string;
    userAgent: string;
    expiresAt: Date;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO web_sessions (id, id_hash, account_id, data, address, user_agent, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (id_hash) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at
     WHERE web_sessions.account_id = EXCLUDED.account_id`,
    [
      session.id,
      session.idHash,
      session.accountId,
      session.data,
      session.address,
      session.userAgent,
      session.expiresAt,
    ],
  );
  // Expired sessions are never read again; each sign-in clears its account's.
  await q.query("DELETE FROM web_sessions WHERE account_id = $1 AND expires_at <= now()", [
    session.accountId,
  ]);
}

/** A live session's data: unexpired, and its account not removed. */
export async function findWebSessionData(q: Queryable, idHash: string): Promise<unknown> {
  const [row] = await q.query<{ data: unknown }>(
    `SELECT s.data FROM web_sessions s JOIN accounts a ON a.id = s.account_id
     WHERE s.id_hash = $1 AND s.expires_at > now() AND a.removed_at IS NULL`,
    [idHash],
  );
  return row?.data;
}

export async function deleteWebSession(q: Queryable, idHash: string): Promise<void> {
  await q.query("DELETE FROM web_sessions WHERE id_hash = $1", [idHash]);
}

export function listWebSessions(
  q: Queryable,
  accountId: string,
): Promise<(WebSessionRow & { id_hash: string })[]> {
  return q.query(
    `SELECT id, id_hash, account_id, address, user_agent, created_at, expires_at FROM web_sessions
     WHERE account_id = $1 AND expires_at > now() ORDER BY created_at DESC`,
    [accountId],
  );
}

export async function deleteAccountWebSession(q: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await q.query("DELETE FROM web_sessions WHERE id = $1 AND account_id = $2 RETURNING id", [
    id,
    accountId,
  ]);
  return rows.length === 1;
}

/** Every other session of the account (after a password change). */
export async function deleteOtherWebSessions(
  q: Queryable,
  accountId: string,
  keepIdHash: string,
): Promise<void> {
  await q.query("DELETE FROM web_sessions WHERE account_id = $1 AND id_hash <> $2", [accountId, keepIdHash]);
}

export async function findSignInLock(q: Queryable, account: string): Promise<Date | undefined> {
  const [row] = await q.query<{ locked_until: Date }>(
    "SELECT locked_until FROM sign_in_locks WHERE account = $1 AND locked_until > now()",
    [account],
  );
  return row?.locked_until;
}

export async function countRecentFailuresFromAddress(
  q: Queryable,
  address: string,
  windowSeconds: number,
): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM sign_in_failures WHERE address = $1 AND failed_at > now() - make_interval(secs => $2)",
    [address, windowSeconds],
  );
  return row?.n ?? 0;
}

/**
 * Records a failed sign-in and, when it is the `limit`-th for the account within the window,
 * locks the account's sign-in for `lockSeconds`. Returns the lock's end when it locked.
 */
export async function recordSignInFailure(
  q: Queryable,
  failure: { account: string; address: string; limit: number; windowSeconds: number; lockSeconds: number },
): Promise<Date | undefined> {
  await q.query("INSERT INTO sign_in_failures (account, address) VALUES ($1, $2)", [
    failure.account,
    failure.address,
  ]);
  // Failures older than the window count for nothing: each new one clears its address's and account's.
  await q.query(
    `DELETE FROM sign_in_failures WHERE failed_at <= now() - make_interval(secs => $3)
       AND (address = $1 OR account = $2)`,
    [failure.address, failure.account, failure.windowSeconds],
  );
  const [locked] = await q.query<{ locked_until: Date }>(
    `INSERT INTO sign_in_locks (account, locked_until)
     SELECT $1, now() + make_interval(secs => $4)
     WHERE (SELECT count(*) FROM sign_in_failures
            WHERE account = $1 AND failed_at > now() - make_interval(secs => $3)) >= $2
     ON CONFLICT (account) DO UPDATE SET locked_until = EXCLUDED.locked_until
     RETURNING locked_until`,
    [failure.account, failure.limit, failure.windowSeconds, failure.lockSeconds],
  );
  return locked?.locked_until;
}

/** A successful sign-in starts the account's count again. */
export async function clearSignInFailures(q: Queryable, account: string): Promise<void> {
  await q.query("DELETE FROM sign_in_failures WHERE account = $1", [account]);
}
