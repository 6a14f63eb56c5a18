// Signing in with a password, and the signed-in account as each request sees it.

import { UUID_PATTERN } from "../platform/format/uuid.ts";
import { decoyHash, passwordMatches } from "./password.ts";
import {
  accountBudget,
  actorName,
  addressBudget,
  canonicalEmail,
  type Principal,
  type SignInResult,
  toPrincipal,
} from "./principal.ts";
import type { AccountKind } from "./sql/accounts.ts";
import { findAccount, findAccountByEmail, type SessionAccount } from "./sql/accounts.ts";
import { giveBackPasswordCheck, resetPasswordChecks, takePasswordCheck } from "./sql/budgets.ts";
import { AccountsUseCase } from "./use-case.ts";

export class SignIn extends AccountsUseCase {
  /**
   * The account's and the address's budgets are taken before the password is
   * checked, in one statement each, so parallel guesses get no more checks than the limit; past
   * it, sign-in is refused even with the right password. Unknown accounts are throttled and timed
   * the same.
   */
  async checkPassword(
    kind: AccountKind,
    email: string,
    password: string,
    address: string,
  ): Promise<SignInResult> {
    const account = accountBudget(kind, email);
    const accountCheck = await takePasswordCheck(this.db, account);
    if (!accountCheck.taken) return { outcome: "throttled", until: accountCheck.until };
    const fromAddress = addressBudget(address);
    const addressCheck = await takePasswordCheck(this.db, fromAddress);
    if (!addressCheck.taken) {
      await giveBackPasswordCheck(this.db, account.key, account.limit);
      return { outcome: "throttled", until: addressCheck.until };
    }
    const row = await findAccountByEmail(this.db, kind, canonicalEmail(email));
    const matches = await passwordMatches(password, row?.password_hash ?? (await decoyHash()));
    if (!row?.password_hash || !matches) {
      await this.audit(
        row?.group_id ?? null,
        "account.sign_in_failed",
        account.key,
        accountCheck.last ? { locked: true } : null,
        { actor: actorName(kind, email.trim()), address },
      );
      // The failure that used the account's last check locks it from now on.
      if (accountCheck.last) {
        return { outcome: "throttled", until: new Date(Date.now() + account.lockSeconds * 1000) };
      }
      return { outcome: "wrong_credentials" };
    }
    await giveBackPasswordCheck(this.db, fromAddress.key, fromAddress.limit);
    // The account's budget starts again only when a session is made: with a second factor, the
    // password alone gives back its own check and leaves the wrong codes counted.
    if (row.totp_enabled_at === null) await resetPasswordChecks(this.db, account.key);
    else await giveBackPasswordCheck(this.db, account.key, account.limit);
    return { outcome: "password_right", principal: toPrincipal(row, this.operatorsRequire2fa) };
  }

  /** The signed-in account as it is now: a removed account or a changed role takes effect at once. */
  async principal(accountId: string): Promise<Principal | undefined> {
    const row = UUID_PATTERN.test(accountId) ? await findAccount(this.db, accountId) : undefined;
    return row && toPrincipal(row, this.operatorsRequire2fa);
  }

  /** The same, from the account read with the request's session (`findWebSession`). */
  principalOf(account: SessionAccount): Principal {
    return toPrincipal(account, this.operatorsRequire2fa);
  }
}
