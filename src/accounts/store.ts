// Every statement on accounts, invites, page sessions, sign-in throttling and the audit log.
import type { Queryable } from "../db/database.ts";
import { prepared } from "../db/prepared.ts";

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
  totp_enabled_at: Date | null;
  /** The account's group requires two-factor sign-in. */
  group_requires_two_factor: boolean;
}

/** What a signed-in page needs of its account, read with its session: no password hash. */
export type SessionAccount = Omit<AccountRow, "password_hash" | "created_at">;

/** A SessionAccount's columns, with its group's two-factor requirement; `a` is the table's alias. */
const sessionAccountColumns = (a = "") =>
  `${a}id, ${a}kind, ${a}group_id, ${a}role, ${a}email, ${a}totp_enabled_at,
   COALESCE((SELECT g.require_two_factor FROM groups g WHERE g.id = ${a}group_id), false) AS group_requires_two_factor`;
/** An account's columns. */
const accountColumns = (a = "") => `${a}password_hash, ${a}created_at, ${sessionAccountColumns(a)}`;
const ACCOUNT_COLUMNS = accountColumns();

/** A new account, or the existing one when an invite is sent again to someone not yet signed up. */
export async function insertAccount(
  q: Queryable,
  account: {
    id: string;
    kind: AccountKind;
    groupId: string | null;
    role: Role | null;
    email: string;
    emailCanonical: string;
  },
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `INSERT INTO accounts (id, kind, group_id, role, email, email_canonical) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (kind, email_canonical) WHERE removed_at IS NULL DO NOTHING
     RETURNING ${ACCOUNT_COLUMNS}`,
    [account.id, account.kind, account.groupId, account.role, account.email, account.emailCanonical],
  );
  return row;
}

/** By the address as the service compares it (canonicalEmail), never as typed. */
export async function findAccountByEmail(
  q: Queryable,
  kind: AccountKind,
  emailCanonical: string,
): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE kind = $1 AND email_canonical = $2 AND removed_at IS NULL`,
    [kind, emailCanonical],
  );
  return row;
}

const FIND_ACCOUNT = prepared(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1 AND removed_at IS NULL`);

/** Every signed-in page view reads its account (requireSignIn): prepared. */
export async function findAccount(q: Queryable, id: string): Promise<AccountRow | undefined> {
  const [row] = await q.query<AccountRow>(FIND_ACCOUNT, [id]);
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

/** An invite sets the first password only: false when the account already has one. */
export async function setFirstPassword(
  q: Queryable,
  accountId: string,
  passwordHash: string,
): Promise<boolean> {
  const rows = await q.query(
    "UPDATE accounts SET password_hash = $2 WHERE id = $1 AND password_hash IS NULL AND removed_at IS NULL RETURNING id",
    [accountId, passwordHash],
  );
  return rows.length === 1;
}

/** Every invite of the account not used yet stops working (a new one was sent, or one was used). */
export async function revokeOpenInvites(q: Queryable, accountId: string): Promise<void> {
  await q.query("UPDATE account_invites SET used_at = now() WHERE account_id = $1 AND used_at IS NULL", [
    accountId,
  ]);
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

export interface WebSessionRow {
  id: string;
  account_id: string;
  address: string;
  user_agent: string;
  created_at: Date;
  expires_at: Date;
}

/** A session's credential tag: what ties it to the password it was signed in with. */
const CREDENTIAL_TAG_SQL = "left(encode(sha256(convert_to(a.password_hash, 'UTF8')), 'hex'), 32)";

/**
 * A session made at sign-in, bound to the account's password as it is now. A session id that
 * exists already is left alone: only sign-in makes sessions.
 */
export async function insertWebSession(
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
): Promise<boolean> {
  const inserted = await q.query(
    `INSERT INTO web_sessions (id, id_hash, account_id, data, address, user_agent, expires_at, credential_tag)
     SELECT $1, $2, a.id, $4, $5, $6, $7, ${CREDENTIAL_TAG_SQL}
     FROM accounts a WHERE a.id = $3 AND a.password_hash IS NOT NULL AND a.removed_at IS NULL
     ON CONFLICT (id_hash) DO NOTHING RETURNING id`,
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
  return inserted.length === 1;
}

/**
 * Saves a live session's data. Never inserts: a session that was ended (signed out, revoked, or
 * by a password change) while a request of it was in flight stays ended.
 */
export async function updateWebSession(
  q: Queryable,
  session: { idHash: string; accountId: string; data: string; expiresAt: Date },
): Promise<void> {
  await q.query("UPDATE web_sessions SET data = $3, expires_at = $4 WHERE id_hash = $1 AND account_id = $2", [
    session.idHash,
    session.accountId,
    session.data,
    session.expiresAt,
  ]);
}

const FIND_WEB_SESSION = prepared(
  `SELECT s.data, ${sessionAccountColumns("a.")}
   FROM web_sessions s JOIN accounts a ON a.id = s.account_id
   WHERE s.id_hash = $1 AND s.expires_at > now() AND a.removed_at IS NULL
     AND s.credential_tag = ${CREDENTIAL_TAG_SQL}`,
);

/**
 * A live session's data (unexpired, its account not removed, its password unchanged since) and
 * its account as it is now, in one statement: every page view behind sign-in needs both.
 */
export async function findWebSession(
  q: Queryable,
  idHash: string,
): Promise<{ data: unknown; account: SessionAccount } | undefined> {
  const [row] = await q.query<SessionAccount & { data: unknown }>(FIND_WEB_SESSION, [idHash]);
  if (!row) return undefined;
  const { data, ...account } = row;
  return { data, account };
}

/** After a password change, the session that made it keeps working with the new password. */
export async function rebindWebSession(q: Queryable, accountId: string, idHash: string): Promise<void> {
  await q.query(
    `UPDATE web_sessions s SET credential_tag = ${CREDENTIAL_TAG_SQL}
     FROM accounts a WHERE a.id = s.account_id AND s.account_id = $1 AND s.id_hash = $2`,
    [accountId, idHash],
  );
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

export interface BudgetLimit {
  key: string;
  limit: number;
  windowSeconds: number;
  lockSeconds: number;
}

export type BudgetAnswer = { taken: true; last: boolean } | { taken: false; until: Date };

/**
 * Takes one password check from a budget, atomically: at most `limit` checks in the window,
 * however many requests arrive at once. The check that uses the last one locks the key for
 * `lockSeconds` (`last`; a success gives it back). Refused, it says when to try again.
 */
export async function takePasswordCheck(q: Queryable, budget: BudgetLimit): Promise<BudgetAnswer> {
  const [taken] = await q.query<{ used: number }>(
    `INSERT INTO password_check_budgets AS b (key, window_started, used, locked_until)
     VALUES ($1, now(), 1, CASE WHEN $2 <= 1 THEN now() + make_interval(secs => $4) END)
     ON CONFLICT (key) DO UPDATE SET
       window_started = CASE WHEN b.window_started <= now() - make_interval(secs => $3) THEN now()
         ELSE b.window_started END,
       used = CASE WHEN b.window_started <= now() - make_interval(secs => $3) THEN 1 ELSE b.used + 1 END,
       locked_until = CASE
         WHEN (CASE WHEN b.window_started <= now() - make_interval(secs => $3) THEN 1 ELSE b.used + 1 END) >= $2
         THEN now() + make_interval(secs => $4) END
     WHERE (b.locked_until IS NULL OR b.locked_until <= now())
       AND (b.window_started <= now() - make_interval(secs => $3) OR b.used < $2)
     RETURNING used`,
    [budget.key, budget.limit, budget.windowSeconds, budget.lockSeconds],
  );
  if (taken) return { taken: true, last: taken.used >= budget.limit };
  const [row] = await q.query<{ until: Date }>(
    `SELECT GREATEST(COALESCE(locked_until, now()), window_started + make_interval(secs => $2)) AS until
     FROM password_check_budgets WHERE key = $1`,
    [budget.key, budget.windowSeconds],
  );
  return { taken: false, until: row?.until ?? new Date() };
}

/** A check that succeeded does not count against the budget (and lifts the lock it set). */
export async function giveBackPasswordCheck(q: Queryable, key: string, limit: number): Promise<void> {
  await q.query(
    `UPDATE password_check_budgets SET used = GREATEST(used - 1, 0),
       locked_until = CASE WHEN used - 1 < $2 THEN NULL ELSE locked_until END
     WHERE key = $1`,
    [key, limit],
  );
}

/** A successful sign-in starts the account's count again. */
export async function resetPasswordChecks(q: Queryable, key: string): Promise<void> {
  await q.query("DELETE FROM password_check_budgets WHERE key = $1", [key]);
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

/** Every session of the account ends (a reset). */
export async function deleteAllWebSessions(q: Queryable, accountId: string): Promise<void> {
  await q.query("DELETE FROM web_sessions WHERE account_id = $1", [accountId]);
}
