// What accounts keep only until it expires: sessions, sign-in challenges, invite and reset links,
// password-check budgets. Each is pruned once its own expiry has passed.
import type { Queryable } from "../../platform/db/database.ts";

/** A used or expired link is kept this long, so that opening it says "expired", not "unknown". */
const SPENT_LINKS_KEPT = "30 days";
/** The longest password-check window (docs/security.md): a budget older than it counts for nothing. */
const BUDGET_WINDOW_KEPT = "1 day";

const EXPIRED = [
  `DELETE FROM web_sessions WHERE id IN (
     SELECT id FROM web_sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT $1) RETURNING 1`,
  `DELETE FROM sign_in_challenges WHERE token_hash IN (
     SELECT token_hash FROM sign_in_challenges WHERE expires_at <= now() LIMIT $1) RETURNING 1`,
  `DELETE FROM account_invites WHERE token_hash IN (
     SELECT token_hash FROM account_invites
     WHERE COALESCE(used_at, expires_at) < now() - interval '${SPENT_LINKS_KEPT}' LIMIT $1) RETURNING 1`,
  `DELETE FROM password_resets WHERE token_hash IN (
     SELECT token_hash FROM password_resets
     WHERE COALESCE(used_at, expires_at) < now() - interval '${SPENT_LINKS_KEPT}' LIMIT $1) RETURNING 1`,
  `DELETE FROM password_check_budgets WHERE key IN (
     SELECT key FROM password_check_budgets
     WHERE window_started < now() - interval '${BUDGET_WINDOW_KEPT}' AND (locked_until IS NULL OR locked_until < now())
     LIMIT $1) RETURNING 1`,
];

/** One batch of each kind of expired record; how many went in all. */
export async function deleteExpiredAccountRecords(q: Queryable, limit: number): Promise<number> {
  let deleted = 0;
  for (const statement of EXPIRED) deleted += (await q.query(statement, [limit])).length;
  return deleted;
}
