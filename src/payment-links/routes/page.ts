import { randomBytes } from "node:crypto";
import formbody from "@fastify/formbody";
import rateLimit, { type RateLimitPluginOptions } from "@fastify/rate-limit";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { Branding } from "../../merchants/branding/service.ts";
import { type CustomerBrand, sendCustomerPage } from "../../pages/kit/customer.ts";
import { html } from "../../pages/kit/html.ts";
import { DatabaseUnavailableError } from "../../platform/db/database.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { majorUnits, money } from "../../platform/format/money.ts";
import { type LinkForm, LinkFormError, type PaymentLinks } from "../service.ts";
import type { PaymentLinkRow } from "../store.ts";

/** Who an unknown link belongs to is unknown: its page names nobody. */
const NOBODY: CustomerBrand = { name: "Payment", color: null, logoPath: null };

class TooManyRequests extends Error {
  readonly statusCode = 429;
}

/** The link's page: what is paid for, the amount (or a field for it), the e-mail, the button. */
function linkForm(link: PaymentLinkRow, values: LinkForm, errors: { amount?: string; email?: string }) {
  const invalid = (field: "amount" | "email") =>
    errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : "";
  const fieldError = (field: "amount" | "email") =>
    errors[field] ? html`<p class="field-error" id="${field}-error">${errors[field]}</p>` : "";
  const amount =
    link.amount !== null
      ? html`<p class="price">${money(link.amount, link.currency)}</p>`
      : html`<label for="amount">Amount (${link.currency.toUpperCase()})</label>
<input id="amount" name="amount" inputmode="decimal" autocomplete="off" required placeholder="${majorUnits(link.min_amount ?? 100, link.currency)}" value="${values.amount ?? ""}"${invalid("amount")}>
<p class="muted">Between ${money(link.min_amount ?? 100, link.currency)} and ${money(link.max_amount ?? 0, link.currency)}.</p>${fieldError("amount")}`;
  const problems = Object.values(errors).filter(Boolean);
  return html`<div class="card">
${problems.length > 0 ? html`<div class="notice" role="alert">Please check the form: ${problems.join(" ")}</div>` : ""}
<h1>${link.name}</h1>${link.description ? html`<p class="muted">${link.description}</p>` : ""}
<form method="post">
${amount}
<label for="email">Your e-mail</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${values.email ?? ""}"${invalid("email")}>${fieldError("email")}
<input type="hidden" name="key" value="${randomBytes(16).toString("base64url")}">
<button type="submit">Pay${link.amount !== null ? ` ${money(link.amount, link.currency)}` : ""}</button>
</form></div>`;
}

const inactivePage = (reply: FastifyReply, brand: CustomerBrand, link: PaymentLinkRow) =>
  sendCustomerPage(
    reply,
    410,
    brand,
    "Link no longer active",
    html`<div class="card"><h1>This payment link is no longer active</h1><p>${link.name}: ${brand.name} no longer takes payments through this link. Nothing was charged. Ask ${brand.name} for a new one.</p></div>`,
  );

const unknownPage = (reply: FastifyReply) =>
  sendCustomerPage(
    reply,
    404,
    NOBODY,
    "Link not found",
    html`<div class="card"><h1>Payment link not found</h1><p>Check the address you were given, or ask the merchant for a new link.</p></div>`,
  );

/** The sender's mistake, by the error's own status (4xx); a throttled address is answered apart. */
const isClientFault = (error: unknown): boolean => {
  if (error instanceof TooManyRequests) return false;
  const status = (error as { statusCode?: number }).statusCode;
  return status !== undefined && status >= 400 && status < 500;
};

/**
 * A payment link's page for customers, on the SafeSite it was made on (docs/api.md, "Payment
 * links"). Each address has RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_SECONDS here (429 page
 * past it).
 */
const paymentLinkPage: FastifyPluginAsync<{
  links: PaymentLinks;
  branding: Branding;
  rateLimit: RateLimitPluginOptions;
}> = async (app, options) => {
  const { links, branding } = options;
  await app.register(formbody, { bodyLimit: 4096 });
  await app.register(rateLimit, {
    ...options.rateLimit,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: () => new TooManyRequests("Too many requests from this address"),
  });
  // People read these answers: every error is a page.
  app.setErrorHandler(async (error, request, reply) => {
    if (isClientFault(error)) {
      // A form no browser sends (a NUL in a field, a body past its limit): the form again.
      const slug = (request.params as { slug?: string } | undefined)?.slug;
      const link = slug ? await links.bySlug(slug) : undefined;
      if (!link) return unknownPage(reply);
      return sendCustomerPage(
        reply,
        400,
        await branding.brand(link.group_id),
        link.name,
        linkForm(link, {}, { email: "The form held something it cannot take: type your details again." }),
      );
    }
    if (error instanceof TooManyRequests) {
      return sendCustomerPage(
        reply,
        429,
        NOBODY,
        "Too many requests",
        html`<div class="card"><h1>Too many requests</h1><p>Nothing was charged. Please wait a minute and try again.</p></div>`,
      );
    }
    const unavailable = error instanceof DatabaseUnavailableError;
    if (!unavailable) request.log.error({ err: error }, "payment link page failed");
    if (unavailable) reply.header("retry-after", "5");
    return sendCustomerPage(
      reply,
      unavailable ? 503 : 500,
      NOBODY,
      "Something went wrong",
      html`<div class="card"><h1>Payments are briefly unavailable</h1><p>Nothing was charged. Please try again in a minute.</p></div>`,
    );
  });

  app.get<{ Params: { slug: string } }>("/l/:slug", { schema: { hide: true } }, async (request, reply) => {
    const link = await links.bySlug(request.params.slug);
    if (!link) return unknownPage(reply);
    const brand = await branding.brand(link.group_id);
    if (!link.active) return inactivePage(reply, brand, link);
    return sendCustomerPage(reply, 200, brand, link.name, linkForm(link, {}, {}));
  });

  app.post<{ Params: { slug: string }; Body: Record<string, unknown> | undefined }>(
    "/l/:slug",
    { schema: { hide: true } },
    async (request, reply) => {
      const body = request.body ?? {};
      const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
      const form: LinkForm = { amount: text("amount"), email: text("email"), key: text("key") };
      try {
        // A NUL in any field is no customer's typing: the form again, before anything is read.
        if (Object.values(body).some((value) => typeof value === "string" && value.includes("\u0000"))) {
          throw new LinkFormError({
            email: "The form held a character it cannot take: type your details again.",
          });
        }
        const answer = await links.pay(request.params.slug, form);
        if (answer.kind === "not_found") return unknownPage(reply);
        if (answer.kind === "inactive") {
          return inactivePage(reply, await branding.brand(answer.link.group_id), answer.link);
        }
        reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
        return reply.redirect(answer.url, 303);
      } catch (error) {
        if (!(error instanceof LinkFormError || error instanceof DomainError)) throw error;
        const link = await links.bySlug(request.params.slug);
        if (!link) return unknownPage(reply);
        const brand = await branding.brand(link.group_id);
        if (error instanceof LinkFormError) {
          return sendCustomerPage(reply, 400, brand, link.name, linkForm(link, form, error.fields));
        }
        // The same form sent again with other values (back, edit, Pay), or while the first is
        // still at the processor: the form once more, with a fresh key.
        if (error.code === "IDEMPOTENCY_CONFLICT" || error.code === "IDEMPOTENCY_IN_PROGRESS") {
          const again =
            "Your payment was already started with other details: check the form and press Pay again.";
          return sendCustomerPage(reply, 409, brand, link.name, linkForm(link, form, { email: again }));
        }
        request.log.warn({ code: error.code, reason: error.message }, "payment link: no checkout opened");
        return sendCustomerPage(
          reply,
          502,
          brand,
          "Payment could not start",
          html`<div class="card"><h1>The payment could not be started</h1><p>Nothing was charged. Please try again in a few minutes, or contact ${brand.name}.</p></div>`,
        );
      }
    },
  );
};

export default paymentLinkPage;
