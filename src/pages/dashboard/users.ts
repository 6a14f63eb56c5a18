import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import { ROLES, type Role } from "../../accounts/principal.ts";
import type { TwoFactorService } from "../../accounts/two-factor.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { auditContext } from "../kit/audit.ts";
import { auditQuery, sendAuditLog } from "../kit/audit-view.ts";
import { time } from "../kit/format.ts";
import { formBody, inviteForm, roleOptions } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { dashboardPage, merchantOf } from "./common.ts";
import { ensureAllowed } from "./permissions.ts";

const userParams = {
  type: "object",
  required: ["userId"],
  properties: { userId: uuidParam("User") },
} as const;
const roleForm = formBody({ role: { type: "string", enum: [...ROLES] } }, ["role"]);

const requireForm = formBody({ required: { type: "string", enum: ["true", "false"] } }, ["required"]);

/** /dashboard/users (owners: invite, reset a password, change role, remove) and /dashboard/audit (owners). */
const userPages: FastifyPluginAsync<{ accounts: Accounts; twoFactor: TwoFactorService }> = async (
  app,
  { accounts, twoFactor },
) => {
  const render = async (request: FastifyRequest, reply: FastifyReply, shownOnce?: Fragment) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_users");
    const users = await accounts.members.list(principal.groupId);
    return dashboardPage(
      request,
      reply,
      "Users",
      html`<h1>Users</h1>${shownOnce ?? ""}
<div class="table-wrap"><table id="users"><thead><tr><th>Email</th><th>Role</th><th>Since</th><th><span class="skip">Remove</span></th></tr></thead><tbody>
${users.map(
  (
    user,
  ) => html`<tr><td>${user.email}${user.pending ? html` <span class="badge pending">invited</span>` : ""}</td>
<td><form method="post" action="/dashboard/users/${user.userId}/role" class="row">${csrfField(reply)}<label class="skip" for="role-${user.userId}">Role of ${user.email}</label>
<select id="role-${user.userId}" name="role">${roleOptions(user.role)}</select><button type="submit" class="secondary">Change</button></form></td>
<td>${time(user.createdAt)}</td>
<td>${user.userId === principal.accountId ? html`<span class="muted">you</span>` : html`${user.pending ? "" : html`<form method="post" action="/dashboard/users/${user.userId}/reset" class="inline">${csrfField(reply)}<button type="submit" class="secondary">Reset password</button></form> `}<form method="post" action="/dashboard/users/${user.userId}/remove" class="inline">${csrfField(reply)}<button type="submit" class="danger">Remove</button></form>`}</td></tr>`,
)}</tbody></table></div>
<h2>Invite someone</h2>
<form method="post" action="/dashboard/users" class="card row">${csrfField(reply)}
<div><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required></div>
<div><label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions("viewer")}</select></div>
<div><button type="submit">Create invite link</button></div></form>
<p class="muted">Owners do everything; developers all but managing users; viewers only read.</p>
<h2>Two-factor sign-in</h2>
<form method="post" action="/dashboard/users/two-factor" class="card" id="require-two-factor">${csrfField(reply)}
<p>${principal.twoFactorRequired ? "Required: every user of this group signs in with a second factor." : "Optional: each user decides."}</p>
<input type="hidden" name="required" value="${principal.twoFactorRequired ? "false" : "true"}">
<p><button type="submit" class="secondary">${principal.twoFactorRequired ? "Make it optional" : "Require it for everyone"}</button></p></form>`,
    );
  };

  app.get("/dashboard/users", async (request, reply) => render(request, reply));

  app.post("/dashboard/users", { schema: { body: inviteForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_users");
    const { email, role } = request.body as { email: string; role: Role };
    let invited: Awaited<ReturnType<Accounts["invites"]["inviteUser"]>>;
    try {
      invited = await accounts.invites.inviteUser(principal.groupId, email, role, auditContext(request));
    } catch (error) {
      if ((error as { code?: string }).code !== "ACCOUNT_EXISTS") throw error;
      // The same words whichever group the address belongs to: one merchant learns nothing of another's users.
      setFlash(request, { kind: "error", text: "That address cannot be invited. Choose another address." });
      return reply.redirect("/dashboard/users", 303);
    }
    return render(
      request,
      reply,
      html`<div class="secret" role="status"><p><strong>Invite for ${invited.email}</strong> (${invited.role}). Send this link; it works once, for 72 hours.</p><p class="mono" id="invite-url">${invited.inviteUrl}</p></div>`,
    );
  });

  app.post(
    "/dashboard/users/:userId/role",
    { schema: { params: userParams, body: roleForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_users");
      const { userId } = request.params as { userId: string };
      await accounts.members.changeRole(
        principal.groupId,
        userId,
        (request.body as { role: Role }).role,
        auditContext(request),
      );
      setFlash(request, { kind: "ok", text: "Role changed." });
      return reply.redirect("/dashboard/users", 303);
    },
  );

  app.post("/dashboard/users/:userId/remove", { schema: { params: userParams } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_users");
    await accounts.members.remove(
      principal.groupId,
      (request.params as { userId: string }).userId,
      auditContext(request),
    );
    setFlash(request, { kind: "ok", text: "User removed and signed out." });
    return reply.redirect("/dashboard/users", 303);
  });

  app.post("/dashboard/users/:userId/reset", { schema: { params: userParams } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_users");
    const reset = await accounts.passwords.issueGroupUserReset(
      principal.groupId,
      (request.params as { userId: string }).userId,
      auditContext(request),
    );
    return render(
      request,
      reply,
      html`<div class="secret" role="status"><p><strong>Password reset link.</strong> Send it to the user; it works once, for one hour, and signs out every session of the account when used.</p><p class="mono" id="reset-url">${reset.resetUrl}</p></div>`,
    );
  });

  app.post("/dashboard/users/two-factor", { schema: { body: requireForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_users");
    const required = (request.body as { required: string }).required === "true";
    await twoFactor.setGroupRequirement(principal.groupId, required, auditContext(request));
    setFlash(request, {
      kind: "ok",
      text: required
        ? "Two-factor sign-in is required: users without it are asked to turn it on."
        : "Two-factor sign-in is optional.",
    });
    return reply.redirect("/dashboard/users", 303);
  });

  app.get("/dashboard/audit", { schema: { querystring: auditQuery } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "read_audit_log");
    return sendAuditLog(accounts, request, reply, "dashboard", principal.groupId);
  });
};

export default userPages;
