import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { CustomerErasure } from "../../privacy/erasure/service.ts";
import { auditContext } from "../kit/audit.ts";
import { formBody } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { dashboardPage, merchantOf } from "./common.ts";
import { ensureAllowed } from "./permissions.ts";

const erasureForm = formBody(
  {
    email: { type: "string", format: "email", maxLength: 255 },
    confirm: { type: "string", enum: ["true"] },
  },
  ["email"],
);

/**
 * /dashboard/privacy (owners): erase a customer on request. The first post only asks again, with
 * the address in a form of its own; the second, carrying `confirm`, erases.
 */
const privacyPages: FastifyPluginAsync<{ erasure: CustomerErasure }> = async (app, { erasure }) => {
  const render = (request: FastifyRequest, reply: FastifyReply, step: Fragment) => {
    ensureAllowed(merchantOf(request), "erase_customers");
    return dashboardPage(
      request,
      reply,
      "Privacy",
      html`<h1>Privacy</h1>
<p class="muted">When a customer asks to be forgotten (GDPR article 17 and its equivalents), erase them here. Every payment of theirs loses the e-mail address, the name, the description and the metadata: on these pages, in exports, in the API, in the events and in stored webhooks and receipts. What your books need stays: amounts, statuses, dates, refunds and disputes. The processor keeps its own records; ask it through its own process.</p>
${step}`,
    );
  };

  const ask = (reply: FastifyReply) =>
    html`<h2>Erase a customer</h2>
<form method="post" action="/dashboard/privacy" class="card row" id="erase-ask">${csrfField(reply)}
<div><label for="erase-email">Customer's e-mail</label><input id="erase-email" name="email" type="email" maxlength="255" required></div>
<div><button type="submit" class="danger">Erase…</button></div></form>`;

  app.get("/dashboard/privacy", async (request, reply) => render(request, reply, ask(reply)));

  app.post("/dashboard/privacy", { schema: { body: erasureForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "erase_customers");
    const { email, confirm } = request.body as { email: string; confirm?: "true" };
    if (confirm !== "true") {
      return render(
        request,
        reply,
        html`<form method="post" action="/dashboard/privacy" class="card" id="erase-confirm">${csrfField(reply)}
<p role="alert"><strong>Erase ${email}?</strong> This cannot be undone: the address, name, description and metadata of every payment of this customer are gone for good.</p>
<input type="hidden" name="email" value="${email}">
<input type="hidden" name="confirm" value="true">
<p><button type="submit" class="danger">Erase this customer</button> <a href="/dashboard/privacy">Cancel</a></p></form>`,
      );
    }
    const { payments } = await erasure.erase({ email, groupId: principal.groupId, ...auditContext(request) });
    setFlash(request, {
      kind: "ok",
      text:
        payments === 0
          ? "No payment had this customer (or it was erased already): nothing to erase."
          : `The customer was erased from ${payments} payment${payments === 1 ? "" : "s"}.`,
    });
    return reply.redirect("/dashboard/privacy", 303);
  });
};

export default privacyPages;
