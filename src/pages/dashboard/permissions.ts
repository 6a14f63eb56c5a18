import type { Principal, Role } from "../../accounts/principal.ts";
import { ApiError } from "../../platform/http/errors.ts";

/** What a merchant user may do on the dashboard, by role. Reading payments is for all. */
export type DashboardAction =
  | "refund"
  | "resend_webhook"
  | "manage_keys"
  | "see_webhook_secret"
  | "manage_safe_sites"
  | "recover_webhooks"
  | "manage_webhook_endpoints"
  | "answer_disputes"
  | "manage_users"
  | "read_audit_log"
  | "manage_payment_links"
  | "manage_branding"
  | "erase_customers";

const DEVELOPER: readonly DashboardAction[] = [
  "refund",
  "resend_webhook",
  "manage_keys",
  "see_webhook_secret",
  "manage_safe_sites",
  "recover_webhooks",
  "manage_webhook_endpoints",
  "answer_disputes",
  "manage_payment_links",
  "manage_branding",
];

const ALLOWED: Record<Role, ReadonlySet<DashboardAction>> = {
  owner: new Set<DashboardAction>([...DEVELOPER, "manage_users", "read_audit_log", "erase_customers"]),
  developer: new Set(DEVELOPER),
  viewer: new Set(),
};

export const can = (principal: Principal, action: DashboardAction): boolean =>
  principal.role !== null && ALLOWED[principal.role].has(action);

/** An action a role may not take is refused with 403, whatever the page showed. */
export function ensureAllowed(principal: Principal, action: DashboardAction): void {
  if (!can(principal, action)) {
    throw new ApiError(
      "FORBIDDEN",
      `Your role (${principal.role}) may not do this. Ask an owner of your group.`,
    );
  }
}
