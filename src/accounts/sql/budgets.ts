// Password-check budgets: how many checks an account or an address may still make.
import type { Queryable } from "../../platform/db/database.ts";

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
