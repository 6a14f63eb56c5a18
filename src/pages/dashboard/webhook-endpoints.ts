// The developers page's webhook endpoints: each with its events, state, its last 24 hours and its
// last attempts; owners and developers add, edit, disable, enable, rotate, test and delete.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../../accounts/principal.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import type { EndpointActivity, WebhookEndpoints } from "../../webhooks/endpoints.ts";
import { WEBHOOK_EVENT_NAMES } from "../../webhooks/event-names.ts";
import { auditBy } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { buttonForm, formBody } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";

const ROTATION_GRACE_SECONDS = 24 * 3600;
const params = {
  type: "object",
  required: ["endpointId"],
  properties: { endpointId: uuidParam("Webhook endpoint") },
} as const;
const eventInputs = Object.fromEntries(
  WEBHOOK_EVENT_NAMES.map((name) => [name, { type: "string", maxLength: 2 }]),
);
const endpointForm = formBody(
  {
    url: { type: "string", maxLength: 2000 },
    description: { type: "string", maxLength: 500 },
    ...eventInputs,
  },
  ["url"],
);
const activationForm = formBody({ enabled: { type: "string", enum: ["true", "false"] } }, ["enabled"]);

const share = (activity: EndpointActivity) =>
  activity.deliveredShare24h === null
    ? html`<span class="muted">no attempts</span>`
    : html`${Math.round(activity.deliveredShare24h * 100)} % of ${activity.attempts24h}`;

const stateOf = (activity: EndpointActivity) =>
  activity.endpoint.enabled
    ? html`<span class="badge ok">enabled</span>`
    : activity.endpoint.disabledReason === "failing"
      ? html`<span class="badge failed">disabled: failing</span>`
      : html`<span class="badge">disabled</span>`;

const eventBoxes = (chosen: readonly string[], prefix: string) =>
  WEBHOOK_EVENT_NAMES.map(
    (name) =>
      html`<label class="check"><input type="checkbox" id="${prefix}-${name}" name="${name}" value="on"${chosen.includes(name) ? html` checked` : ""}> <span class="mono">${name}</span></label>`,
  );

/** The section of the developers page. */
export function endpointsSection(
  principal: Principal,
  reply: FastifyReply,
  activity: readonly EndpointActivity[],
): Fragment {
  const manage = can(principal, "manage_webhook_endpoints");
  return html`<section id="endpoints"><h2>Webhook endpoints</h2>
<p class="muted">Each endpoint receives the events it takes from every payment of the group, signed with its own secret, besides the payment's own webhookUrl.</p>
${
  activity.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`<div class="table-wrap"><table id="endpoint-list"><thead><tr><th>URL</th><th>Events</th><th>State</th><th class="num">Last 24 hours</th><th>Last attempts</th>${manage ? html`<th><span class="skip">Actions</span></th>` : ""}</tr></thead><tbody>
${activity.map((each) => {
  const { endpoint } = each;
  const base = `/dashboard/developers/endpoints/${endpoint.endpointId}`;
  return html`<tr><td class="mono">${endpoint.url}${endpoint.description ? html`<br><span class="muted">${endpoint.description}</span>` : ""}</td>
<td>${endpoint.events.map((name) => html`<span class="mono">${name}</span> `)}</td><td>${stateOf(each)}</td><td class="num">${share(each)}</td>
<td>${
    each.lastAttempts.length === 0
      ? html`<span class="muted">none</span>`
      : html`<ul class="plain">${each.lastAttempts.map(
          (attempt) =>
            html`<li>${time(attempt.at)} <span class="mono">${attempt.event}</span> ${attempt.statusCode ?? "—"} ${attempt.error ?? (attempt.answer ? html`<code class="answer">${attempt.answer}</code>` : "")}</li>`,
        )}</ul>`
  }</td>
${
  manage
    ? html`<td><div class="row">
<form method="post" action="${base}/test" class="inline">${csrfField(reply)}<button type="submit" class="secondary">Test</button></form>
<form method="post" action="${base}/enabled" class="inline">${csrfField(reply)}<input type="hidden" name="enabled" value="${endpoint.enabled ? "false" : "true"}"><button type="submit" class="secondary">${endpoint.enabled ? "Disable" : "Enable"}</button></form>
<form method="post" action="${base}/rotate" class="inline">${csrfField(reply)}<button type="submit" class="secondary">Rotate secret</button></form>
<form method="post" action="${base}/delete" class="inline">${csrfField(reply)}<button type="submit" class="danger">Delete</button></form></div>
<details><summary>Edit</summary><form method="post" action="${base}" class="card">${csrfField(reply)}
<label for="url-${endpoint.endpointId}">URL</label><input id="url-${endpoint.endpointId}" name="url" type="url" maxlength="2000" size="40" value="${endpoint.url}" required>
<label for="description-${endpoint.endpointId}">Description</label><input id="description-${endpoint.endpointId}" name="description" maxlength="500" value="${endpoint.description ?? ""}">
<fieldset><legend>Events</legend>${eventBoxes(endpoint.events, endpoint.endpointId)}</fieldset>
<button type="submit">Save</button></form></details></td>`
    : ""
}</tr>`;
})}</tbody></table></div>`
}
${
  manage
    ? html`<form method="post" action="/dashboard/developers/endpoints" class="card" id="add-endpoint">${csrfField(reply)}
<h3>Add an endpoint</h3>
<label for="endpoint-url">URL</label><input id="endpoint-url" name="url" type="url" maxlength="2000" size="50" placeholder="https://shop.example.com/fulfilment" required>
<label for="endpoint-description">Description (optional)</label><input id="endpoint-description" name="description" maxlength="500">
<fieldset><legend>Events (none ticked: all of them)</legend>${eventBoxes([], "new")}</fieldset>
<button type="submit">Add the endpoint</button> <span class="muted">Its signing secret is shown once.</span></form>`
    : html`<p class="muted">Only owners and developers can change endpoints.</p>`
}</section>`;
}

/** The ticked boxes of a form, as event names. */
const tickedEvents = (body: Record<string, string | undefined>) =>
  WEBHOOK_EVENT_NAMES.filter((name) => body[name] === "on");

/** The secret shown once, above the developers page. */
const shownSecret = (title: string, secret: string) =>
  html`<div class="secret" role="status"><p><strong>${title}</strong> Copy it now: it is not shown again.</p><p class="mono" id="endpoint-secret">${secret}</p></div>`;

const endpointPages: FastifyPluginAsync<{
  endpoints: WebhookEndpoints;
  /** The developers page, with `shownOnce` above it. */
  render: (request: FastifyRequest, reply: FastifyReply, shownOnce?: Fragment) => Promise<unknown>;
}> = async (app, { endpoints, render }) => {
  const back = (reply: FastifyReply) => reply.redirect("/dashboard/developers#endpoints", 303);
  const endpointIdOf = (request: FastifyRequest) => (request.params as { endpointId: string }).endpointId;
  const input = (body: Record<string, string | undefined>) => {
    const events = tickedEvents(body);
    return {
      url: (body.url ?? "").trim(),
      description: body.description?.trim() || null,
      ...(events.length > 0 && { events }),
    };
  };

  app.post("/dashboard/developers/endpoints", { schema: { body: endpointForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_webhook_endpoints");
    const { secret, endpoint } = await endpoints.create(
      principal.groupId,
      input(request.body as Record<string, string | undefined>),
      (made) =>
        auditBy(request, principal.groupId, "webhook_endpoint.created", made.endpointId, { url: made.url }),
    );
    return render(request, reply, shownSecret(`Endpoint ${endpoint.url} added.`, secret));
  });

  app.post(
    "/dashboard/developers/endpoints/:endpointId",
    { schema: { params, body: endpointForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_webhook_endpoints");
      const endpointId = endpointIdOf(request);
      const { url, description, events } = {
        events: [...WEBHOOK_EVENT_NAMES] as string[],
        ...input(request.body as Record<string, string | undefined>),
      };
      await endpoints.update(principal.groupId, endpointId, { url, description, events }, () =>
        auditBy(request, principal.groupId, "webhook_endpoint.changed", endpointId, { url, events }),
      );
      setFlash(request, { kind: "ok", text: `Endpoint ${url} saved.` });
      return back(reply);
    },
  );

  app.post(
    "/dashboard/developers/endpoints/:endpointId/enabled",
    { schema: { params, body: activationForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_webhook_endpoints");
      const endpointId = endpointIdOf(request);
      const enabled = (request.body as { enabled: string }).enabled === "true";
      const endpoint = await endpoints.update(principal.groupId, endpointId, { enabled }, () =>
        auditBy(request, principal.groupId, "webhook_endpoint.changed", endpointId, { enabled }),
      );
      setFlash(request, {
        kind: "ok",
        text: enabled
          ? `${endpoint.url} is enabled: new events go to it (nothing old is sent by itself; recover a window to send what it missed).`
          : `${endpoint.url} is disabled: nothing more is sent to it.`,
      });
      return back(reply);
    },
  );

  app.post(
    "/dashboard/developers/endpoints/:endpointId/rotate",
    { schema: { params, body: buttonForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_webhook_endpoints");
      const endpointId = endpointIdOf(request);
      const { secret } = await endpoints.rotateSecret(
        principal.groupId,
        endpointId,
        ROTATION_GRACE_SECONDS,
        () => auditBy(request, principal.groupId, "webhook_endpoint.secret_rotated", endpointId),
      );
      return render(
        request,
        reply,
        shownSecret("New signing secret: the previous one signs beside it for 24 hours.", secret),
      );
    },
  );

  app.post(
    "/dashboard/developers/endpoints/:endpointId/test",
    { schema: { params, body: buttonForm }, config: { rateLimit: { max: 10, timeWindow: 60_000 } } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_webhook_endpoints");
      const endpointId = endpointIdOf(request);
      await endpoints.test(principal.groupId, endpointId, () =>
        auditBy(request, principal.groupId, "webhook_endpoint.tested", endpointId),
      );
      setFlash(request, {
        kind: "ok",
        text: "A signed webhook.test event is on its way; its attempt shows below.",
      });
      return back(reply);
    },
  );

  app.post(
    "/dashboard/developers/endpoints/:endpointId/delete",
    { schema: { params, body: buttonForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_webhook_endpoints");
      const endpointId = endpointIdOf(request);
      await endpoints.remove(principal.groupId, endpointId, () =>
        auditBy(request, principal.groupId, "webhook_endpoint.deleted", endpointId),
      );
      setFlash(request, { kind: "ok", text: "Endpoint deleted." });
      return back(reply);
    },
  );
};

export default endpointPages;
