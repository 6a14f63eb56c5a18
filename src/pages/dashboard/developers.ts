import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import type { MerchantsService } from "../../merchants/service.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { recoveryWindowFromForm } from "../../platform/http/window.ts";
import type { WebhookEndpoints } from "../../webhooks/endpoints.ts";
import type { WebhookEvents } from "../../webhooks/module.ts";
import type { WebhookSettings } from "../../webhooks/settings.ts";
import { auditBy, auditContext } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { activationForm, buttonForm, formBody, publicKeyParam, windowFields } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { dashboardPage, merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";
import endpointPages, { endpointsSection } from "./webhook-endpoints.ts";

/** Receivers keep verifying with the previous secret this long after a rotation. */
const ROTATION_GRACE_SECONDS = 24 * 3600;
const keyParams = {
  type: "object",
  required: ["publicKey"],
  properties: { publicKey: publicKeyParam },
} as const;
const siteParams = {
  type: "object",
  required: ["siteId"],
  properties: { siteId: uuidParam("SafeSite") },
} as const;
const recoverForm = formBody(windowFields, ["since"]);
const webhookUrlForm = formBody({ url: { type: "string", maxLength: 2000 } }, []);

/** /dashboard/developers: API keys, the webhook signing secret, SafeSites, webhook recovery. */
const developerPages: FastifyPluginAsync<{
  merchants: MerchantsService;
  webhooks: WebhookEvents;
  webhookSettings: WebhookSettings;
  webhookEndpoints: WebhookEndpoints;
  accounts: Accounts;
}> = async (app, { merchants, webhooks, webhookSettings, webhookEndpoints, accounts }) => {
  const render = async (request: FastifyRequest, reply: FastifyReply, shownOnce?: Fragment) => {
    const principal = merchantOf(request);
    const [group, keys, webhookUrl, endpoints] = await Promise.all([
      merchants.getGroup(principal.groupId),
      merchants.keys(principal.groupId),
      webhookSettings.get(principal.groupId),
      webhookEndpoints.activity(principal.groupId),
    ]);
    const manageKeys = can(principal, "manage_keys");
    const manageSites = can(principal, "manage_safe_sites");
    const seeSecret = can(principal, "see_webhook_secret");
    const recover = can(principal, "recover_webhooks");
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
    return dashboardPage(
      request,
      reply,
      "Developers",
      html`<h1>Developers</h1>${shownOnce ?? ""}
<section><h2>API keys</h2>
<div class="table-wrap"><table id="keys"><thead><tr><th>Public key</th><th>Created</th><th>State</th>${manageKeys ? html`<th><span class="skip">Action</span></th>` : ""}</tr></thead><tbody>
${keys.map(
  (
    key,
  ) => html`<tr><td class="mono">${key.publicKey}</td><td>${time(key.createdAt)}</td><td>${key.revokedAt ? html`revoked ${time(key.revokedAt)}` : html`<span class="badge ok">active</span>`}</td>
${manageKeys ? html`<td>${key.revokedAt ? "" : html`<form method="post" action="/dashboard/developers/keys/${key.publicKey}/revoke" class="inline">${csrfField(reply)}<button type="submit" class="danger">Revoke</button></form>`}</td>` : ""}</tr>`,
)}</tbody></table></div>
${manageKeys ? html`<form method="post" action="/dashboard/developers/keys">${csrfField(reply)}<p><button type="submit">Create a key pair</button> <span class="muted">The secret key is shown once.</span></p></form>` : ""}
</section>
<section><h2>Webhook URL</h2>
<p class="muted">Events of payments that name no webhookUrl of their own (payment links, API calls without one) are sent here.</p>
${
  recover
    ? html`<form method="post" action="/dashboard/developers/webhook-url" class="card row">${csrfField(reply)}
<div><label for="webhookUrl">URL (empty for none)</label><input id="webhookUrl" name="url" type="url" maxlength="2000" size="50" value="${webhookUrl.url ?? ""}" placeholder="https://shop.example.com/webhooks"></div>
<div><button type="submit">Save</button></div></form>`
    : html`<p class="mono" id="webhook-url">${webhookUrl.url ?? "none"}</p>`
}</section>
${endpointsSection(principal, reply, endpoints)}
<section><h2>Webhook signing secret</h2>
${
  seeSecret
    ? html`<div class="row"><form method="post" action="/dashboard/developers/webhook-secret/reveal" class="inline">${csrfField(reply)}<button type="submit" class="secondary">Reveal</button></form>
<form method="post" action="/dashboard/developers/webhook-secret/rotate" class="inline">${csrfField(reply)}<button type="submit" class="danger">Rotate</button></form></div>
<p class="muted">After a rotation the previous secret keeps signing for 24 hours, so receivers can switch.</p>`
    : html`<p class="muted">Only owners and developers can see the signing secret.</p>`
}</section>
<section><h2>SafeSites</h2>
<p class="muted">The web addresses your payment pages live on: each payment's link opens on one of them before the customer goes on to the processor.</p>
<div class="table-wrap"><table id="safe-sites"><thead><tr><th>Name</th><th>URL</th><th>State</th>${manageSites ? html`<th><span class="skip">Action</span></th>` : ""}</tr></thead><tbody>
${group.safeSites.map(
  (
    site,
  ) => html`<tr><td>${site.name}</td><td class="mono">${site.url}</td><td>${site.isActive ? html`<span class="badge ok">active</span>` : html`<span class="badge">inactive</span>`}</td>
${manageSites ? html`<td><form method="post" action="/dashboard/developers/safe-sites/${site.id}" class="inline">${csrfField(reply)}<input type="hidden" name="isActive" value="${site.isActive ? "false" : "true"}"><button type="submit" class="secondary">${site.isActive ? "Deactivate" : "Activate"}</button></form></td>` : ""}</tr>`,
)}</tbody></table></div>
<p class="muted">New SafeSites are added by the operator.</p></section>
${
  recover
    ? html`<section><h2>Recover failed webhooks</h2>
<form method="post" action="/dashboard/developers/recover" class="card row">${csrfField(reply)}
<div><label for="since">Failed since (UTC)</label><input id="since" name="since" type="datetime-local" value="${dayAgo}" required></div>
<div><label for="until">Until (UTC, empty for now)</label><input id="until" name="until" type="datetime-local"></div>
<div><button type="submit">Send them again</button></div></form>
<p class="muted">Every event whose deliveries all failed in the window is sent again with its original webhook-id.</p></section>`
    : ""
}`,
    );
  };

  app.get("/dashboard/developers", async (request, reply) => render(request, reply));
  await app.register(endpointPages, { endpoints: webhookEndpoints, render });

  app.post("/dashboard/developers/keys", { schema: { body: buttonForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_keys");
    const pair = await merchants.issueKey(principal.groupId, (created) =>
      auditBy(request, principal.groupId, "api_key.created", created.publicKey),
    );
    return render(
      request,
      reply,
      html`<div class="secret" role="status"><p><strong>New key pair.</strong> Copy the secret key now: it is not shown again.</p>
<dl class="facts"><dt>Public key</dt><dd class="mono" id="new-public-key">${pair.publicKey}</dd><dt>Secret key</dt><dd class="mono" id="new-secret-key">${pair.secretKey}</dd></dl></div>`,
    );
  });

  app.post(
    "/dashboard/developers/keys/:publicKey/revoke",
    { schema: { params: keyParams, body: buttonForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_keys");
      const { publicKey } = request.params as { publicKey: string };
      const revoked = await merchants.revokeKey(publicKey, principal.groupId, (done) =>
        done ? auditBy(request, principal.groupId, "api_key.revoked", publicKey) : null,
      );
      if (!revoked) throw new ApiError("NOT_FOUND", "No active key with that public key");
      setFlash(request, { kind: "ok", text: `Key ${publicKey} revoked.` });
      return reply.redirect("/dashboard/developers", 303);
    },
  );

  app.post(
    "/dashboard/developers/webhook-secret/reveal",
    { schema: { body: buttonForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "see_webhook_secret");
      const secret = await merchants.webhookSecret(principal.groupId);
      await accounts.members.audit(
        principal.groupId,
        "webhook_secret.revealed",
        null,
        null,
        auditContext(request),
      );
      return render(
        request,
        reply,
        html`<div class="secret" role="status"><p><strong>Webhook signing secret</strong></p><p class="mono" id="webhook-secret">${secret}</p></div>`,
      );
    },
  );

  app.post(
    "/dashboard/developers/webhook-secret/rotate",
    { schema: { body: buttonForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "see_webhook_secret");
      const rotated = await merchants.rotateWebhookSecret(principal.groupId, ROTATION_GRACE_SECONDS, () =>
        auditBy(request, principal.groupId, "webhook_secret.rotated"),
      );
      return render(
        request,
        reply,
        html`<div class="secret" role="status"><p><strong>New webhook signing secret.</strong> The previous one keeps signing until ${time(new Date(rotated.previousSecretValidUntil))}.</p><p class="mono" id="webhook-secret">${rotated.webhookSecret}</p></div>`,
      );
    },
  );

  app.post(
    "/dashboard/developers/safe-sites/:siteId",
    { schema: { params: siteParams, body: activationForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_safe_sites");
      const { siteId } = request.params as { siteId: string };
      const isActive = (request.body as { isActive: string }).isActive === "true";
      const site = await merchants.updateSafeSite(siteId, { isActive }, principal.groupId, (changed) =>
        auditBy(
          request,
          principal.groupId,
          isActive ? "safe_site.activated" : "safe_site.deactivated",
          changed.url,
        ),
      );
      setFlash(request, { kind: "ok", text: `${site.name} is now ${isActive ? "active" : "inactive"}.` });
      return reply.redirect("/dashboard/developers", 303);
    },
  );

  app.post(
    "/dashboard/developers/webhook-url",
    { schema: { body: webhookUrlForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "recover_webhooks");
      const typed = ((request.body as { url?: string }).url ?? "").trim();
      if (typed !== "" && !/^https?:\/\/[^\s]{3,}$/.test(typed)) {
        setFlash(request, {
          kind: "error",
          text: "The webhook URL must be an http(s) address, e.g. https://shop.example.com/webhooks",
        });
        return reply.redirect("/dashboard/developers", 303);
      }
      const url = typed === "" ? null : typed;
      try {
        await webhookSettings.set(principal.groupId, url, () =>
          auditBy(request, principal.groupId, "webhook_settings.changed", null, { url }),
        );
        setFlash(request, {
          kind: "ok",
          text: url ? `Webhooks now go to ${url}.` : "The webhook URL is cleared.",
        });
      } catch (error) {
        // A host no webhook would reach: said on the page, and the URL set before stays.
        if (!(error instanceof DomainError) || error.code !== "INVALID_REQUEST") throw error;
        setFlash(request, {
          kind: "error",
          text: `Webhooks cannot go to ${url}: its host is private or unreachable from this service. Nothing changed.`,
        });
      }
      return reply.redirect("/dashboard/developers", 303);
    },
  );

  app.post(
    "/dashboard/developers/recover",
    // The API's limit for the same action (POST /api/v1/events/recover), per group.
    { schema: { body: recoverForm }, config: { rateLimit: { max: 10, timeWindow: 60_000 } } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "recover_webhooks");
      const window = recoveryWindowFromForm(request.body as { since: string; until?: string });
      if (!window) {
        setFlash(request, { kind: "error", text: "Choose a start before the end of the window." });
        return reply.redirect("/dashboard/developers", 303);
      }
      const { since, until } = window;
      const { queued } = await webhooks.replays.recover(
        { groupId: principal.groupId, since, until },
        (count) =>
          auditBy(request, principal.groupId, "webhooks.recovered", null, { since, until, queued: count }),
      );
      setFlash(request, {
        kind: "ok",
        text: `${queued} event${queued === 1 ? "" : "s"} queued for delivery again.`,
      });
      return reply.redirect("/dashboard/developers", 303);
    },
  );
};

export default developerPages;
