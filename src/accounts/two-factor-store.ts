// Statements of two-factor sign-in: the sealed TOTP secret, accepted steps, recovery codes,
// sign-in challenges and the group's requirement.
import type { Queryable } from "../platform/db/database.ts";

export interface TwoFactorRow {
  totp_secret: string | null;
  totp_pending_secret: string | null;
  /** The digest of the session id the pending secret was shown to. */
  totp_pending_session: string | null;
  totp_enabled_at: Date | null;
}

export async function findTwoFactor(q: Queryable, accountId: string): Promise<TwoFactorRow | undefined> {
  const [row] = await q.query<TwoFactorRow>(
    `SELECT totp_secret, totp_pending_secret, totp_pending_session, totp_enabled_at FROM accounts
     WHERE id = $1 AND removed_at IS NULL`,
    [accountId],
  );
  return row;
}

/**
 * The pending secret of this session (by its id's digest): the same on every view of the page in
 * that session. A view from another session replaces it, so no secret is shown to two sessions.
 */
export async function offerPendingSecret(
  q: Queryable,
  accountId: string,
  sessionIdHash: string,
  sealed: string,
): Promise<string | null> {
  const [row] = await q.query<{ totp_pending_secret: string | null }>(
    `UPDATE accounts SET
       totp_pending_secret = CASE WHEN totp_pending_session = $3 THEN COALESCE(totp_pending_secret, $2) ELSE $2 END,
       totp_pending_session = $3
     WHERE id = $1 AND totp_enabled_at IS NULL RETURNING totp_pending_secret`,
    [accountId, sealed, sessionIdHash],
  );
  return row?.totp_pending_secret ?? null;
}

/** The pending secret this session was shown becomes the account's; false when it was not that. */
export async function enableTotp(
  q: Queryable,
  accountId: string,
  sessionIdHash: string,
  pendingSecret: string,
  step: number,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE accounts SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_pending_session = NULL,
       totp_enabled_at = now(), totp_last_step = $2
     WHERE id = $1 AND totp_enabled_at IS NULL AND totp_pending_session = $3 AND totp_pending_secret = $4
     RETURNING id`,
    [accountId, step, sessionIdHash, pendingSecret],
  );
  return rows.length === 1;
}

export async function disableTotp(q: Queryable, accountId: string): Promise<void> {
  await q.query(
    `UPDATE accounts SET totp_secret = NULL, totp_pending_secret = NULL, totp_pending_session = NULL,
       totp_enabled_at = NULL, totp_last_step = NULL
     WHERE id = $1`,
    [accountId],
  );
  await q.query("DELETE FROM recovery_codes WHERE account_id = $1", [accountId]);
}

/** Accepts a code's step once: a code seen before (or older than the last) is refused. */
export async function acceptStep(q: Queryable, accountId: string, step: number): Promise<boolean> {
  const rows = await q.query(
    `UPDATE accounts SET totp_last_step = $2
     WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
    [accountId, step],
  );
  return rows.length === 1;
}

export async function replaceRecoveryCodes(
  q: Queryable,
  accountId: string,
  hashes: readonly string[],
): Promise<void> {
  await q.query("DELETE FROM recovery_codes WHERE account_id = $1", [accountId]);
  await q.query("INSERT INTO recovery_codes (account_id, code_hash) SELECT $1, unnest($2::text[])", [
    accountId,
    hashes,
  ]);
}

/** One of the account's unused recovery codes' stored forms (they share a salt), if any is left. */
export async function anyUnusedRecoveryCode(q: Queryable, accountId: string): Promise<string | undefined> {
  const [row] = await q.query<{ code_hash: string }>(
    "SELECT code_hash FROM recovery_codes WHERE account_id = $1 AND used_at IS NULL LIMIT 1",
    [accountId],
  );
  return row?.code_hash;
}

/** Accounts whose recovery codes are stored as a bare SHA-256 digest (before salting). */
export async function listUnsaltedRecoveryCodes(
  q: Queryable,
): Promise<{ account_id: string; code_hashes: string[] }[]> {
  return q.query(
    `SELECT account_id, array_agg(code_hash) AS code_hashes FROM recovery_codes
     WHERE code_hash NOT LIKE 'scrypt$%' GROUP BY account_id ORDER BY account_id`,
  );
}

/** Replaces one stored form with another, unless it changed meanwhile. */
export async function replaceRecoveryCodeHash(
  q: Queryable,
  accountId: string,
  was: string,
  hash: string,
): Promise<void> {
  await q.query("UPDATE recovery_codes SET code_hash = $3 WHERE account_id = $1 AND code_hash = $2", [
    accountId,
    was,
    hash,
  ]);
}

/** Uses a recovery code up; false when it is not one of the account's unused codes. */
export async function useRecoveryCode(q: Queryable, accountId: string, hash: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE recovery_codes SET used_at = now()
     WHERE account_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING code_hash`,
    [accountId, hash],
  );
  return rows.length === 1;
}

export async function insertChallenge(
  q: Queryable,
  challenge: { tokenHash: string; accountId: string; ttlSeconds: number },
): Promise<void> {
  await q.query(
    `INSERT INTO sign_in_challenges (token_hash, account_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [challenge.tokenHash, challenge.accountId, challenge.ttlSeconds],
  );
  await q.query("DELETE FROM sign_in_challenges WHERE expires_at <= now()");
}

export async function findChallenge(q: Queryable, tokenHash: string): Promise<string | undefined> {
  const [row] = await q.query<{ account_id: string }>(
    "SELECT account_id FROM sign_in_challenges WHERE token_hash = $1 AND expires_at > now()",
    [tokenHash],
  );
  return row?.account_id;
}

export async function deleteChallenge(q: Queryable, tokenHash: string): Promise<boolean> {
  const rows = await q.query("DELETE FROM sign_in_challenges WHERE token_hash = $1 RETURNING token_hash", [
    tokenHash,
  ]);
  return rows.length === 1;
}

export async function setGroupRequiresTwoFactor(
  q: Queryable,
  groupId: string,
  required: boolean,
): Promise<void> {
  await q.query("UPDATE groups SET require_two_factor = $2 WHERE id = $1", [groupId, required]);
}

/** Accounts holding a two-factor secret (on, or offered). */
export function listTotpSecrets(
  q: Queryable,
): Promise<{ id: string; totp_secret: string | null; totp_pending_secret: string | null }[]> {
  return q.query(
    `SELECT id, totp_secret, totp_pending_secret FROM accounts
     WHERE totp_secret IS NOT NULL OR totp_pending_secret IS NOT NULL ORDER BY id`,
  );
}

/** Replaces an account's secrets with their resealed form, unless they changed meanwhile. */
export async function replaceTotpSecrets(
  q: Queryable,
  accountId: string,
  was: { secret: string | null; pending: string | null },
  sealed: { secret: string | null; pending: string | null },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE accounts SET totp_secret = $4, totp_pending_secret = $5
     WHERE id = $1 AND totp_secret IS NOT DISTINCT FROM $2 AND totp_pending_secret IS NOT DISTINCT FROM $3
     RETURNING id`,
    [accountId, was.secret, was.pending, sealed.secret, sealed.pending],
  );
  return rows.length === 1;
}
