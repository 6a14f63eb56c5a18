import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { Branding } from "../../merchants/branding/service.ts";
import { PAID_STATUSES } from "../../payments/core/status.ts";
import type { ProcessorEvents } from "../../payments/processor-events/service.ts";
import type { PaymentQueries } from "../../payments/queries/service.ts";
import type { PaymentLinkSummary } from "../../payments/queries/store.ts";
import { DatabaseUnavailableError } from "../../platform/db/database.ts";
import { money } from "../../platform/format/money.ts";
import { RETRY_AFTER_SECONDS } from "../../platform/http/error-handler.ts";
import { type CustomerBrand, sendCustomerPage } from "../kit/customer.ts";
import { html } from "../kit/html.ts";

/** A page whose payment is unknown names no merchant. */
const NOBODY: CustomerBrand = { name: "Payment", color: null, logoPath: null };

const card = (title: string, text: string) => html`<div class="card"><h1>${title}</h1><p>${text}</p></div>`;

const PAGES = {
  not_found: {
    status: 404,
    title: "Not found",
    body: card("Payment link not found", "Check the link you were given, or ask the merchant for a new one."),
  },
  already_paid: {
    status: 410,
    title: "Already paid",
    body: card("This payment is already complete", "Nothing more to pay."),
  },
  expired: {
    status: 410,
    title: "Link expired",
    body: card("This payment link has expired", "Nothing was charged. Ask the merchant for a new one."),
  },
} as const;

/** The customer's pages on a SafeSite: the hosted link, the way back, and where a payment ended. */
const checkoutRoutes: FastifyPluginAsync<{
  queries: PaymentQueries;
  processorEvents: ProcessorEvents;
  branding: Branding;
}> = async (app, { queries, processorEvents, branding }) => {
  const page = async (reply: FastifyReply, groupId: string | null, kind: keyof typeof PAGES) => {
    const shown = PAGES[kind];
    const brand = groupId ? await branding.brand(groupId) : NOBODY;
    return sendCustomerPage(reply, shown.status, brand, shown.title, shown.body);
  };

  // People read these answers, not programs: errors are pages too, never JSON.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof DatabaseUnavailableError) {
      request.log.warn({ err: { message: error.message } }, "customer page: database unavailable");
      reply.header("retry-after", RETRY_AFTER_SECONDS);
      return sendCustomerPage(
        reply,
        503,
        NOBODY,
        "Temporarily unavailable",
        card(
          "Payments are briefly unavailable",
          "Nothing was charged. Please try the same link again in a minute.",
        ),
      );
    }
    request.log.error({ err: error }, "customer page failed");
    return sendCustomerPage(
      reply,
      500,
      NOBODY,
      "Something went wrong",
      card(
        "Something went wrong",
        "Nothing was charged. Please try the same link again, or ask the merchant.",
      ),
    );
  });

  app.get<{ Params: { token: string } }>(
    "/pay/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const answer = await queries.openLink(request.params.token);
      if (answer.kind === "not_found") return page(reply, null, "not_found");
      if (answer.kind !== "redirect") return page(reply, answer.groupId, answer.kind);
      reply.header("x-frame-options", "DENY").header("content-security-policy", "frame-ancestors 'none'");
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(answer.url, 303);
    },
  );

  app.get<{ Params: { token: string } }>(
    "/return/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const destination = await processorEvents.returnDestination(request.params.token);
      if (destination === null) return page(reply, null, "not_found");
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(destination, 303);
    },
  );

  // Where a customer lands after paying through a link without a successUrl, or when the
  // merchant's URL is unusable and FALLBACK_URL is unset: did the payment go through? (docs/api.md,
  // "The customer's way through")
  app.get<{ Params: { token: string } }>(
    "/done/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const payment = await queries.byLinkToken(request.params.token);
      if (!payment) return page(reply, null, "not_found");
      const [brand, link] = await Promise.all([branding.brand(payment.group_id), queries.linkOf(payment)]);
      const amount = money(payment.amount, payment.currency);
      const what = link ? html` for ${link.name}` : "";
      const paid = PAID_STATUSES.has(payment.status);
      const body = paid
        ? html`<div class="card"><p class="status ok">Payment received</p><h1>Thank you</h1>
<p>${brand.name} has received your payment of ${amount}${what}.</p>
<p class="muted">${brand.receipts && payment.customer_email ? `A receipt is on its way to ${maskedEmail(payment.customer_email)}. ` : ""}Reference: <span>${payment.id}</span></p></div>`
        : html`<div class="card"><p class="status bad">Not paid</p><h1>The payment did not go through</h1>
<p>Nothing was charged for ${amount}${what} to ${brand.name}.</p>
${wayOn(queries.isStillPayable(payment) ? `/pay/${request.params.token}` : null, link, brand.name)}
<p class="muted">Reference: <span>${payment.id}</span></p></div>`;
      reply.header("referrer-policy", "no-referrer");
      return sendCustomerPage(reply, 200, brand, paid ? "Payment received" : "Not paid", body);
    },
  );
};

/**
 * Where a customer who did not pay can go from /done: the same checkout while it is open, else a
 * new payment through the link it came from while that link takes payments, else the merchant.
 */
function wayOn(openCheckout: string | null, link: PaymentLinkSummary | null, merchant: string) {
  if (openCheckout) return html`<p><a class="button" href="${openCheckout}">Try again</a></p>`;
  if (link?.active) return html`<p><a class="button" href="${link.url}">Start again</a></p>`;
  return html`<p>This checkout has ended: ask ${merchant} for a new payment link.</p>`;
}

/**
 * An address as the /done page shows it: its first character and its domain (`j•••@example.com`).
 * The page's token is the payment link's, which merchants store and customers share.
 */
function maskedEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return at <= 0 ? "•••" : `${email[0]}•••${email.slice(at)}`;
}

export default checkoutRoutes;
