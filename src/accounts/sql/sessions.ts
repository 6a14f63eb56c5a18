// Page sessions: one row a signed-in browser, bound to the password it signed in with.
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";
import { type SessionAccount, sessionAccountColumns } from "./accounts.ts";

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

/** Every session of the account ends (a reset). */
export async function deleteAllWebSessions(q: Queryable, accountId: string): Promise<void> {
  await q.query("DELETE FROM web_sessions WHERE account_id = $1", [accountId]);
}
