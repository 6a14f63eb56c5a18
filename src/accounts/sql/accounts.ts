// Accounts: merchant users and operators, their passwords and roles.
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";

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
export const sessionAccountColumns = (a = "") =>
  `${a}id, ${a}kind, ${a}group_id, ${a}role, ${a}email, ${a}totp_enabled_at,
   COALESCE((SELECT g.require_two_factor FROM groups g WHERE g.id = ${a}group_id), false) AS group_requires_two_factor`;

/** An account's columns. */
export const accountColumns = (a = "") => `${a}password_hash, ${a}created_at, ${sessionAccountColumns(a)}`;

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
