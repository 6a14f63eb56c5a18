// Accounts of the dashboard and the console, in the shape of payments: one object per use case,
// built once with what they share.
import { Invites } from "./invites.ts";
import { Members } from "./members.ts";
import { Passwords } from "./passwords.ts";
import { Sessions } from "./sessions.ts";
import { SignIn } from "./sign-in.ts";
import type { AccountsDeps } from "./use-case.ts";

/** Merchant users and operators: invites, passwords and resets, sign-in, sessions, members. */
export interface Accounts {
  invites: Invites;
  passwords: Passwords;
  signIn: SignIn;
  sessions: Sessions;
  members: Members;
}

export function createAccounts(deps: AccountsDeps): Accounts {
  return {
    invites: new Invites(deps),
    passwords: new Passwords(deps),
    signIn: new SignIn(deps),
    sessions: new Sessions(deps),
    members: new Members(deps),
  };
}
