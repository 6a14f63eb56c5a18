// Form schemas the pages share. Every form carries `_csrf`; the rest is what the form asks for.
import { ROLES, type Role } from "../../accounts/principal.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import { html } from "./html.ts";

const CSRF = { _csrf: { type: "string", maxLength: 200 } } as const;

/** A form body schema: the named fields, plus the CSRF token every form posts. */
export const formBody = <
  const P extends Record<string, unknown>,
  const R extends readonly (keyof P & string)[],
>(
  properties: P,
  required: R,
) => ({ type: "object", required, properties: { ...properties, ...CSRF } }) as const;

/** A form with nothing but its token (a button). */
export const buttonForm = formBody({}, []);

export const inviteForm = formBody(
  { email: { type: "string", format: "email", maxLength: 254 }, role: { type: "string", enum: [...ROLES] } },
  ["email", "role"],
);

export const activationForm = formBody({ isActive: { type: "string", enum: ["true", "false"] } }, [
  "isActive",
]);

export const publicKeyParam = {
  type: "string",
  pattern: describedPattern("^pk_[A-Za-z0-9_-]{1,100}$", "must be a public key (pk_…)"),
} as const;

const minute = {
  type: "string",
  pattern: describedPattern(
    "^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2})?$",
    "must be a date and time such as 2026-11-01T09:00",
  ),
} as const;

/** A recovery window from two datetime-local inputs, read as UTC (the forms say so). */
export const windowFields = { since: minute, until: minute } as const;

/** The role choices of a select, the current one selected. */
export const roleOptions = (selected: Role | null) =>
  ROLES.map(
    (role) => html`<option value="${role}"${role === selected ? html` selected` : ""}>${role}</option>`,
  );
