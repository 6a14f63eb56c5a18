// Who is signed in, and the rules every use case of accounts shares: how an address is compared,
// how an account is named in the audit log, and the budgets of password checks.
import type { AuditEntry } from "../platform/audit/store.ts";
import type { AccountKind, Role, SessionAccount } from "./sql/accounts.ts";

export type { AccountKind, Role, SessionAccount } from "./sql/accounts.ts";
export const ROLES: readonly Role[] = ["owner", "developer", "viewer"];

/** An invite: single use, 72 hours. */
export const INVITE_TTL_SECONDS = 72 * 3600;
/** A password reset: single use, 1 hour. */
export const RESET_TTL_SECONDS = 3600;
/** "Forgot password" e-mails per client address: a few, not a mail cannon. */
export const FORGOT_REQUESTS = { limit: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
/**
 * Reset e-mails per account asked for by "forgot password", whatever the asking
 * addresses: each one voids the link before it, so a flood would keep its owner from resetting.
 */
export const RESET_MAILS_PER_ACCOUNT = { limit: 3, windowSeconds: 3600, lockSeconds: 0 };
/**
 * At most 10 password checks per account in 15 minutes (then 15 minutes locked),
 * however many arrive at once; per client address, across accounts, 100 (enough for an office
 * behind one NAT, not for a password spray). A check that succeeds is given back.
 */
const ACCOUNT_CHECKS = { limit: 10, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };
const ADDRESS_CHECKS = { limit: 100, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

/** Who is signed in, as every page sees it. */
export interface Principal {
  accountId: string;
  kind: AccountKind;
  email: string;
  groupId: string | null;
  role: Role | null;
  twoFactorOn: boolean;
  /** The group (or OPERATORS_REQUIRE_2FA) requires a second factor: pages wait until it is on. */
  twoFactorRequired: boolean;
}

export type SignInResult =
  /** A session may be made, after the second factor where the account has one. */
  | { outcome: "password_right"; principal: Principal }
  | { outcome: "wrong_credentials" }
  | { outcome: "throttled"; until: Date };

export interface AuditContext {
  actor: string;
  address: string | null;
}

export const toPrincipal = (row: SessionAccount, operatorsRequire2fa: boolean): Principal => ({
  accountId: row.id,
  kind: row.kind,
  email: row.email,
  groupId: row.group_id,
  role: row.role,
  twoFactorOn: row.totp_enabled_at !== null,
  twoFactorRequired: row.kind === "operator" ? operatorsRequire2fa : row.group_requires_two_factor,
});

/**
 * An e-mail address as the service compares it: one account however it is cased or written
 * (NFKC). Look-ups, uniqueness and throttling all use this form, computed here and only here.
 */
export const canonicalEmail = (email: string): string => email.trim().normalize("NFKC").toLowerCase();

/** The budget of password checks an account (known or not) spends from; second factors spend from it too. */
export const accountBudget = (kind: AccountKind, email: string) => ({
  key: `${kind}:${canonicalEmail(email)}`,
  ...ACCOUNT_CHECKS,
});
export const addressBudget = (address: string) => ({ key: `address:${address}`, ...ADDRESS_CHECKS });

/** How an account is named in the audit log: `user:EMAIL` or `operator:EMAIL`. */
export const actorName = (kind: AccountKind, email: string): string =>
  `${kind === "merchant" ? "user" : "operator"}:${email}`;

export const actorOf = (principal: Principal): string => actorName(principal.kind, principal.email);

/**
 * The audit entry of what a signed-in account does to itself: signing out, its password, its
 * two-factor set-up, one of its sessions (`target`, else the account).
 */
export function ownAct(
  principal: Principal,
  action: string,
  address: string,
  more: { target?: string; detail?: unknown } = {},
): AuditEntry {
  return {
    groupId: principal.groupId,
    actor: actorOf(principal),
    action,
    target: more.target ?? principal.accountId,
    detail: more.detail ?? null,
    address,
  };
}
