import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import type { Role } from "../../accounts/principal.ts";
import { displayName, siteUrl } from "../../merchants/routes/schemas.ts";
import type { MerchantsService } from "../../merchants/service.ts";
import type { ProcessorRouting } from "../../payments/routing/service.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { auditBy, auditContext } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { activationForm, formBody, inviteForm, publicKeyParam, roleOptions } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { consolePage } from "./common.ts";
import {
  RouteRowError,
  routesFromForm,
  routingEditor,
  routingTable,
  routingTableForm,
} from "./routing-form.ts";

const groupParams = {
  type: "object",
  required: ["groupId"],
  properties: { groupId: uuidParam("Group") },
} as const;
const createGroupForm = formBody({ name: displayName, siteName: displayName, siteUrl }, [
  "name",
  "siteName",
  "siteUrl",
]);
const siteForm = formBody({ name: displayName, url: siteUrl }, ["name", "url"]);
const siteParams = {
  type: "object",
  required: ["groupId", "siteId"],
  properties: { groupId: uuidParam("Group"), siteId: uuidParam("SafeSite") },
} as const;
const keyParams = {
  type: "object",
  required: ["groupId", "publicKey"],
  properties: { groupId: uuidParam("Group"), publicKey: publicKeyParam },
} as const;

const GROUPS_SHOWN = 500;

/**
 * /operator (groups) and /operator/groups/:groupId (SafeSites, users, processor routing,
 * emergency key revocation).
 */
const groupPages: FastifyPluginAsync<{
  merchants: MerchantsService;
  accounts: Accounts;
  routing: ProcessorRouting;
}> = async (app, { merchants, accounts, routing }) => {
  const renderList = async (request: FastifyRequest, reply: FastifyReply, shownOnce?: Fragment) => {
    const groups = await merchants.groups(GROUPS_SHOWN);
    return consolePage(
      request,
      reply,
      "Groups",
      html`<h1>Groups</h1>${shownOnce ?? ""}
<div class="table-wrap"><table id="groups"><thead><tr><th>Name</th><th>Group ID</th><th class="num">Active SafeSites</th><th>Created</th></tr></thead><tbody>
${groups.map(
  (group) =>
    html`<tr><td><a href="/operator/groups/${group.groupId}">${group.groupName}</a></td><td class="mono">${group.groupId}</td><td class="num">${group.activeSafeSites}</td><td>${time(group.createdAt)}</td></tr>`,
)}</tbody></table></div>
<h2>Create a group</h2>
<form method="post" action="/operator/groups" class="card row">${csrfField(reply)}
<div><label for="group-name">Name</label><input id="group-name" name="name" required maxlength="200"></div>
<div><label for="site-name">First SafeSite name</label><input id="site-name" name="siteName" value="Main" required maxlength="200"></div>
<div><label for="site-url">SafeSite URL</label><input id="site-url" name="siteUrl" type="url" placeholder="https://pay.example.com" required></div>
<div><button type="submit">Create group</button></div></form>`,
    );
  };

  app.get("/operator", async (request, reply) => renderList(request, reply));

  app.post("/operator/groups", { schema: { body: createGroupForm } }, async (request, reply) => {
    const form = request.body as { name: string; siteName: string; siteUrl: string };
    const group = await merchants.createGroup(
      { name: form.name, safeSites: [{ name: form.siteName, url: form.siteUrl }] },
      (created) =>
        auditBy(request, created.groupId, "group.created", created.groupId, { name: created.groupName }),
    );
    return renderList(
      request,
      reply,
      html`<div class="secret" role="status"><p><strong>${group.groupName} created.</strong> Hand these to the merchant; the secrets are not shown again.</p>
<dl class="facts"><dt>Group ID</dt><dd class="mono">${group.groupId}</dd><dt>Public key</dt><dd class="mono">${group.publicKey}</dd>
<dt>Secret key</dt><dd class="mono">${group.secretKey}</dd><dt>Webhook secret</dt><dd class="mono">${group.webhookSecret}</dd></dl>
<p><a href="/operator/groups/${group.groupId}">Invite its first owner</a></p></div>`,
    );
  });

  const renderGroup = async (
    request: FastifyRequest,
    reply: FastifyReply,
    groupId: string,
    shownOnce?: Fragment,
  ) => {
    const [group, keys, users, routes] = await Promise.all([
      merchants.getGroup(groupId),
      merchants.keys(groupId),
      accounts.members.list(groupId),
      routing.get(groupId),
    ]);
    const base = `/operator/groups/${group.groupId}`;
    return consolePage(
      request,
      reply,
      group.groupName,
      html`<p><a href="/operator">← Groups</a></p><h1>${group.groupName}</h1>${shownOnce ?? ""}
<p class="mono">${group.groupId}</p>
<h2>SafeSites</h2>
<div class="table-wrap"><table><thead><tr><th>Name</th><th>URL</th><th>State</th><th><span class="skip">Action</span></th></tr></thead><tbody>
${group.safeSites.map(
  (
    site,
  ) => html`<tr><td>${site.name}</td><td class="mono">${site.url}</td><td>${site.isActive ? html`<span class="badge ok">active</span>` : "inactive"}</td>
<td><form method="post" action="${base}/safe-sites/${site.id}" class="inline">${csrfField(reply)}<input type="hidden" name="isActive" value="${site.isActive ? "false" : "true"}"><button type="submit" class="secondary">${site.isActive ? "Deactivate" : "Activate"}</button></form></td></tr>`,
)}</tbody></table></div>
<form method="post" action="${base}/safe-sites" class="card row">${csrfField(reply)}
<div><label for="new-site-name">Name</label><input id="new-site-name" name="name" required maxlength="200"></div>
<div><label for="new-site-url">URL</label><input id="new-site-url" name="url" type="url" required></div>
<div><button type="submit">Add SafeSite</button></div></form>
<h2>Users</h2>
<div class="table-wrap"><table><thead><tr><th>Email</th><th>Role</th><th>Since</th></tr></thead><tbody>
${users.map((user) => html`<tr><td>${user.email}${user.pending ? html` <span class="badge pending">invited</span>` : ""}</td><td>${user.role}</td><td>${time(user.createdAt)}</td></tr>`)}
</tbody></table></div>
<form method="post" action="${base}/users" class="card row">${csrfField(reply)}
<div><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required></div>
<div><label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions("owner")}</select></div>
<div><button type="submit">Create invite link</button></div></form>
<h2>Processor routing</h2>
${routingTable(routes.routes, routing.defaultRoute)}
${routingEditor(reply, `${base}/routing`, routes.routes)}
<h2>API keys</h2>
<div class="table-wrap"><table><thead><tr><th>Public key</th><th>Created</th><th>State</th><th><span class="skip">Action</span></th></tr></thead><tbody>
${keys.map(
  (
    key,
  ) => html`<tr><td class="mono">${key.publicKey}</td><td>${time(key.createdAt)}</td><td>${key.revokedAt ? html`revoked ${time(key.revokedAt)}` : html`<span class="badge ok">active</span>`}</td>
<td>${key.revokedAt ? "" : html`<form method="post" action="${base}/keys/${key.publicKey}/revoke" class="inline">${csrfField(reply)}<button type="submit" class="danger">Revoke now</button></form>`}</td></tr>`,
)}</tbody></table></div>`,
    );
  };

  app.get("/operator/groups/:groupId", { schema: { params: groupParams } }, async (request, reply) =>
    renderGroup(request, reply, (request.params as { groupId: string }).groupId),
  );

  app.post(
    "/operator/groups/:groupId/routing",
    { schema: { params: groupParams, body: routingTableForm } },
    async (request, reply) => {
      const { groupId } = request.params as { groupId: string };
      try {
        const routes = routesFromForm(request.body as Record<string, string | undefined>);
        await routing.set(groupId, routes, (saved) =>
          auditBy(request, groupId, saved.length > 0 ? "routing.set" : "routing.cleared", groupId, {
            routes: saved,
          }),
        );
        setFlash(request, { kind: "ok", text: "Routing saved." });
      } catch (error) {
        if (!(error instanceof RouteRowError) && (error as { code?: string }).code !== "INVALID_REQUEST")
          throw error;
        setFlash(request, { kind: "error", text: (error as Error).message });
      }
      return reply.redirect(`/operator/groups/${groupId}`, 303);
    },
  );

  app.post(
    "/operator/groups/:groupId/safe-sites",
    { schema: { params: groupParams, body: siteForm } },
    async (request, reply) => {
      const { groupId } = request.params as { groupId: string };
      const form = request.body as { name: string; url: string };
      const site = await merchants.addSafeSite(groupId, { name: form.name, url: form.url }, (added) =>
        auditBy(request, groupId, "safe_site.added", added.url),
      );
      setFlash(request, { kind: "ok", text: `SafeSite ${site.name} added.` });
      return reply.redirect(`/operator/groups/${groupId}`, 303);
    },
  );

  app.post(
    "/operator/groups/:groupId/safe-sites/:siteId",
    { schema: { params: siteParams, body: activationForm } },
    async (request, reply) => {
      const { groupId, siteId } = request.params as { groupId: string; siteId: string };
      const isActive = (request.body as { isActive: string }).isActive === "true";
      await merchants.updateSafeSite(siteId, { isActive }, groupId, (site) =>
        auditBy(request, groupId, isActive ? "safe_site.activated" : "safe_site.deactivated", site.url),
      );
      return reply.redirect(`/operator/groups/${groupId}`, 303);
    },
  );

  app.post(
    "/operator/groups/:groupId/users",
    { schema: { params: groupParams, body: inviteForm } },
    async (request, reply) => {
      const { groupId } = request.params as { groupId: string };
      const { email, role } = request.body as { email: string; role: Role };
      const invited = await accounts.invites.inviteUser(groupId, email, role, auditContext(request));
      return renderGroup(
        request,
        reply,
        groupId,
        html`<div class="secret" role="status"><p><strong>Invite for ${invited.email}</strong> (${invited.role}): works once, for 72 hours.</p><p class="mono" id="invite-url">${invited.inviteUrl}</p></div>`,
      );
    },
  );

  app.post(
    "/operator/groups/:groupId/keys/:publicKey/revoke",
    { schema: { params: keyParams } },
    async (request, reply) => {
      const { groupId, publicKey } = request.params as { groupId: string; publicKey: string };
      const revoked = await merchants.revokeKey(publicKey, groupId, (done) =>
        done ? auditBy(request, groupId, "api_key.revoked", publicKey, { emergency: true }) : null,
      );
      if (!revoked) throw new ApiError("NOT_FOUND", "No active key with that public key");
      setFlash(request, { kind: "ok", text: `Key ${publicKey} revoked on every instance.` });
      return reply.redirect(`/operator/groups/${groupId}`, 303);
    },
  );
};

export default groupPages;
