import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { linkUrl, type PaymentLinks } from "../../payment-links/service.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { CURRENCIES, majorUnits, money, readAmount } from "../../platform/format/money.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { auditBy } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { activationForm, formBody } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { csrfField, layout, sendHtml, setFlash } from "../kit/layout.ts";
import { qrCode } from "../kit/qr.ts";
import { merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";

const linkParams = {
  type: "object",
  required: ["linkId"],
  properties: { linkId: uuidParam("Payment link") },
} as const;

const text = (maxLength: number) => ({ type: "string", maxLength }) as const;
const createForm = formBody(
  {
    name: text(200),
    currency: { type: "string", enum: [...CURRENCIES] },
    amount: text(20),
    minAmount: text(20),
    maxAmount: text(20),
    description: text(1000),
    successUrl: text(2000),
  },
  ["name", "currency"],
);

type CreateForm = {
  [K in "name" | "currency" | "amount" | "minAmount" | "maxAmount" | "description" | "successUrl"]?: string;
};

/** An amount typed in major units ("12.50"), or why it is not one; empty is undefined. */
function minorUnitsOf(label: string, raw: string | undefined, currency: string): number | undefined {
  const reading = readAmount(raw ?? "", currency);
  if ("problem" in reading && reading.problem === "empty") return undefined;
  if ("problem" in reading && reading.problem === "decimal-comma")
    throw new DomainError(
      "INVALID_REQUEST",
      `${label}: use a dot for cents, e.g. ${majorUnits(1250, currency)}`,
    );
  if ("problem" in reading || reading.minor < 1 || reading.minor > 99_999_999) {
    throw new DomainError(
      "INVALID_REQUEST",
      `${label} must be an amount such as ${majorUnits(1250, currency)}, from ${majorUnits(1, currency)} to ${majorUnits(99_999_999, currency)}`,
    );
  }
  return reading.minor;
}

/** /dashboard/payment-links: links made without code, what they took, and each one's QR code. */
const paymentLinkPages: FastifyPluginAsync<{ links: PaymentLinks }> = async (app, { links }) => {
  /** The page: the form (as typed, after a refusal) and every link. */
  const body = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = merchantOf(request);
    const manage = can(principal, "manage_payment_links");
    const rows = await links.list(principal.groupId, undefined, 100);
    const form = (request.body ?? {}) as CreateForm;
    const list =
      rows.length === 0
        ? html`<p class="muted">No payment links yet.</p>`
        : rows.map((link) => {
            const url = linkUrl(link);
            const price =
              link.amount !== null
                ? money(link.amount, link.currency)
                : `${money(link.min_amount ?? 0, link.currency)} – ${money(link.max_amount ?? 0, link.currency)}, customer's choice`;
            return html`<section class="card link" id="link-${link.id}">
<div class="grid"><div>
<h2>${link.name} ${link.active ? html`<span class="badge ok">active</span>` : html`<span class="badge">inactive</span>`}</h2>
${link.description ? html`<p class="muted">${link.description}</p>` : ""}
<dl class="facts"><dt>Price</dt><dd>${price}</dd>
<dt>Paid</dt><dd>${link.payment_count} payment${link.payment_count === 1 ? "" : "s"}, ${money(link.amount_paid, link.currency)}</dd>
<dt>Created</dt><dd>${time(link.created_at)}</dd>
<dt>After paying</dt><dd>${link.success_url ? html`<span class="mono">${link.success_url}</span>` : "the service's confirmation page"}</dd></dl>
<label for="url-${link.id}">Link to share</label>
<input id="url-${link.id}" class="mono copy" readonly value="${url}" size="48">
<p><a href="/dashboard/payments?paymentLinkId=${link.id}">Its payments</a> · <a href="${url}" rel="noopener" target="_blank">Open the page</a></p>
${manage ? html`<form method="post" action="/dashboard/payment-links/${link.id}" class="inline">${csrfField(reply)}<input type="hidden" name="isActive" value="${link.active ? "false" : "true"}"><button type="submit" class="${link.active ? "danger" : "secondary"}">${link.active ? "Deactivate" : "Activate again"}</button></form>` : ""}
</div><div>${qrCode(url, `QR code of the link ${link.name}`)}</div></div></section>`;
          });
    const create = manage
      ? html`<section class="card"><h2>New payment link</h2>
<form method="post" action="/dashboard/payment-links">${csrfField(reply)}
<label for="name">What the customer pays for</label><input id="name" name="name" required maxlength="200" value="${form.name ?? ""}">
<label for="currency">Currency</label><select id="currency" name="currency">${CURRENCIES.map((code) => html`<option value="${code}"${form.currency === code ? html` selected` : ""}>${code.toUpperCase()}</option>`)}</select>
<label for="amount">Price (leave empty to let the customer choose)</label><input id="amount" name="amount" inputmode="decimal" placeholder="12.50" value="${form.amount ?? ""}">
<div class="row"><div><label for="minAmount">Customer's choice: at least</label><input id="minAmount" name="minAmount" inputmode="decimal" placeholder="1.00" value="${form.minAmount ?? ""}"></div>
<div><label for="maxAmount">at most</label><input id="maxAmount" name="maxAmount" inputmode="decimal" placeholder="999999.99" value="${form.maxAmount ?? ""}"></div></div>
<label for="description">Description (optional)</label><input id="description" name="description" maxlength="1000" value="${form.description ?? ""}">
<label for="successUrl">Page after paying (optional, https://…)</label><input id="successUrl" name="successUrl" type="url" maxlength="2000" value="${form.successUrl ?? ""}">
<p><button type="submit">Create the link</button></p></form></section>`
      : html`<p class="muted">Viewers see the links; owners and developers make and change them.</p>`;
    return html`<h1>Payment links</h1>${create}${list}`;
  };
  const render = async (request: FastifyRequest, reply: FastifyReply, error?: string) =>
    sendHtml(
      reply,
      error ? 400 : 200,
      layout(request, reply, {
        audience: "dashboard",
        title: "Payment links",
        body: await body(request, reply),
        error,
      }),
    );

  app.get("/dashboard/payment-links", async (request, reply) => render(request, reply));

  app.post("/dashboard/payment-links", { schema: { body: createForm } }, async (request, reply) => {
    const principal = merchantOf(request);
    ensureAllowed(principal, "manage_payment_links");
    const form = request.body as CreateForm & { name: string; currency: string };
    const optional = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
    try {
      const successUrl = optional(form.successUrl);
      if (successUrl !== undefined && !/^https?:\/\/.{3,}/.test(successUrl)) {
        throw new DomainError("INVALID_REQUEST", "The page after paying must be an http(s) address");
      }
      if (!form.name.trim()) throw new DomainError("INVALID_REQUEST", "Say what the customer pays for");
      const link = await links.create(
        principal.groupId,
        {
          name: form.name.trim(),
          currency: form.currency,
          amount: minorUnitsOf("The price", form.amount, form.currency),
          minAmount: minorUnitsOf("The least amount", form.minAmount, form.currency),
          maxAmount: minorUnitsOf("The most amount", form.maxAmount, form.currency),
          description: optional(form.description),
          successUrl,
        },
        (id) => auditBy(request, principal.groupId, "payment_link.created", id, { name: form.name.trim() }),
      );
      setFlash(request, { kind: "ok", text: `Payment link "${link.name}" created: ${linkUrl(link)}` });
      return reply.redirect("/dashboard/payment-links", 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "INVALID_REQUEST") throw error;
      // The form again, as typed, with the reason.
      return render(request, reply, error.message);
    }
  });

  app.post(
    "/dashboard/payment-links/:linkId",
    { schema: { params: linkParams, body: activationForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "manage_payment_links");
      const { linkId } = request.params as { linkId: string };
      const active = (request.body as { isActive: string }).isActive === "true";
      const link = await links.change(principal.groupId, linkId, { active }, (changed) =>
        changed
          ? auditBy(
              request,
              principal.groupId,
              active ? "payment_link.activated" : "payment_link.deactivated",
              linkId,
            )
          : null,
      );
      setFlash(request, { kind: "ok", text: `"${link.name}" is now ${active ? "active" : "inactive"}.` });
      return reply.redirect("/dashboard/payment-links", 303);
    },
  );
};

export default paymentLinkPages;
