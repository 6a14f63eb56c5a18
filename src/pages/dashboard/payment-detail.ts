import { randomUUID } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import { visibleMetadata } from "../../payments/core/metadata.ts";
import { PAID_STATUSES, refundableAmount } from "../../payments/core/status.ts";
import type { Payments } from "../../payments/module.ts";
import type { RefundReason } from "../../payments/refunds/store.ts";
import { isPaidAfterCancel } from "../../payments/resource.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { majorUnits, money, readAmount } from "../../platform/format/money.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import type { WebhookEvents } from "../../webhooks/module.ts";
import { auditBy, auditContext } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { formBody } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { paymentStatusBadge, paymentStatusWord, statusBadge, statusChangeRow, words } from "../kit/labels.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { dashboardPage, merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";

const paymentParams = {
  type: "object",
  required: ["transactionId"],
  properties: { transactionId: uuidParam("Payment") },
} as const;
const eventParams = {
  type: "object",
  required: ["transactionId", "eventId"],
  properties: { transactionId: uuidParam("Payment"), eventId: uuidParam("Event") },
} as const;
/** Why a create passed a processor over, in words. */
const PASSED_OVER: Record<string, string> = {
  timeout: "no answer in time",
  connection: "connection lost",
  server_error: "server error",
  rate_limited: "rate limited",
  breaker_open: "skipped while failing",
};

const REASONS: readonly RefundReason[] = ["requested_by_customer", "duplicate", "fraudulent"];
const refundForm = formBody(
  {
    amount: { type: "string", maxLength: 20 },
    reason: { type: "string", enum: ["", ...REASONS] },
    confirm: { type: "string", enum: ["true"] },
    key: {
      type: "string",
      pattern: describedPattern("^[0-9a-f-]{36}$", "must be the key the form was given"),
    },
  },
  ["key"],
);

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** /dashboard/payments/:transactionId: everything about one payment, with refund and resend. */
const paymentDetailPages: FastifyPluginAsync<{
  payments: Payments;
  webhooks: WebhookEvents;
}> = async (app, { payments, webhooks }) => {
  app.get(
    "/dashboard/payments/:transactionId",
    { schema: { params: paymentParams } },
    async (request, reply) => {
      const principal = merchantOf(request);
      const { transactionId } = request.params as { transactionId: string };
      const payment = await payments.queries.get(principal.groupId, transactionId);
      const [history, refunds, disputes, events, link] = await Promise.all([
        payments.queries.statusHistory(payment),
        payments.refunds.listOf(payment),
        payments.disputes.ofPaymentRow(payment),
        webhooks.log.eventsOf(principal.groupId, payment.id),
        payments.queries.linkOf(payment),
      ]);
      const metadata = visibleMetadata(payment.metadata);
      const remaining = refundableAmount(payment, "merchant");
      const refundable = remaining > 0;
      const mayRefund = can(principal, "refund");
      const mayResend = can(principal, "resend_webhook");

      return dashboardPage(
        request,
        reply,
        `Payment ${payment.id}`,
        html`<p><a href="/dashboard/payments">← Payments</a></p>
<h1>${money(payment.amount, payment.currency)} ${paymentStatusBadge(payment.status)}</h1>
${
  isPaidAfterCancel(payment)
    ? html`<p class="card flash error" id="paid-after-cancel" role="alert"><strong>Paid after it was cancelled.</strong> The customer paid at the processor after this payment was cancelled, so the money was taken although the payment stays cancelled. The operator has it in the reconciliation queue and gives it back in full; ${money(payment.refunded_amount, payment.currency)} has been refunded so far.</p>`
    : ""
}
${
  payment.redirect_fallback
    ? html`<p class="notice" id="redirect-fallback" role="note">The successUrl or cancelUrl given at create has a loopback, private or reserved host, or is not a valid http(s) URL, so the customer is sent to the fallback page instead of your site when coming back from the processor. For local development, list the host in ALLOWED_PRIVATE_HOSTS.</p>`
    : ""
}
<section class="card"><dl class="facts">
<dt>Transaction ID</dt><dd class="mono">${payment.id}</dd>
<dt>Status</dt><dd id="payment-status" data-status="${payment.status}">${paymentStatusWord(payment.status)}</dd>
<dt>Amount</dt><dd>${money(payment.amount, payment.currency)}</dd>
<dt>Refunded</dt><dd id="amount-refunded">${money(payment.refunded_amount, payment.currency)}</dd>
${
  payment.payment_link_id
    ? html`<dt>Payment link</dt><dd id="payment-link"><a href="/dashboard/payment-links#link-${payment.payment_link_id}">${link?.name ?? "(deleted)"}</a></dd>`
    : ""
}
<dt>Description</dt><dd id="description">${payment.description ?? "—"}</dd>
<dt>Customer</dt><dd id="customer">${payment.erased_at ? html`<span class="muted">Erased ${time(payment.erased_at)}</span>` : html`${payment.customer_name ? html`${payment.customer_name} · ` : ""}${payment.customer_email}`}</dd>
<dt>Created</dt><dd>${time(payment.created_at)}</dd>
${payment.completed_at ? html`<dt>${PAID_STATUSES.has(payment.status) ? "Paid on" : "Ended"}</dt><dd>${time(payment.completed_at)}</dd>` : ""}
${payments.queries.isStillPayable(payment) ? html`<dt>Checkout open until</dt><dd>${time(payment.expires_at)}</dd>` : ""}
<dt>Payment page on</dt><dd>${payment.safe_site_url}</dd>
<dt>Processor</dt><dd id="processor">${payment.processor}${
          payment.processor_failovers
            ? html` <span class="muted" id="failover">tried after ${payment.processor_failovers.map(
                (passed, index) =>
                  html`${index > 0 ? ", " : ""}${passed.processor} (${PASSED_OVER[passed.reason] ?? passed.reason})`,
              )}</span>`
            : ""
        }</dd>
<dt>At the processor</dt><dd>checkout <span class="mono">${payment.processor_checkout_id ?? "—"}</span> · payment <span class="mono">${payment.processor_payment_id ?? "—"}</span></dd>
<dt>Webhook URL</dt><dd class="mono">${payment.webhook_url ?? "—"}</dd>
</dl></section>

<h2>Metadata</h2>
${
  metadata
    ? html`<div class="table-wrap"><table id="metadata"><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody>
${Object.entries(metadata).map(([key, value]) => html`<tr><td class="mono">${key}</td><td>${show(value)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="muted">None.</p>`
}

<h2>Status history</h2>
<div class="table-wrap"><table><thead><tr><th>When</th><th>From</th><th>To</th><th>Reason</th></tr></thead><tbody>
${history.map(statusChangeRow)}</tbody></table></div>

<h2>Refunds</h2>
${
  refunds.length > 0
    ? html`<div class="table-wrap"><table id="refunds"><thead><tr><th>Created</th><th class="num">Amount</th><th>Status</th><th>Reason</th><th>Refund ID</th></tr></thead><tbody>
${refunds.map(
  (refund) =>
    html`<tr><td>${time(new Date(refund.createdAt))}</td><td class="num">${money(refund.amount, refund.currency)}</td><td>${statusBadge(refund.status)}</td><td>${refund.reason ? words(refund.reason) : "—"}</td><td class="mono">${refund.refundId}</td></tr>`,
)}</tbody></table></div>`
    : html`<p class="muted">No refunds.</p>`
}
${
  refundable && mayRefund
    ? html`<form method="post" action="/dashboard/payments/${payment.id}/refunds" class="card row" id="refund-form">${csrfField(reply)}
<input type="hidden" name="key" value="${randomUUID()}">
<div><label for="refund-amount">Amount (${payment.currency.toUpperCase()}, up to ${money(remaining, payment.currency)})</label>
<input id="refund-amount" name="amount" inputmode="decimal" value="${majorUnits(remaining, payment.currency)}" required size="12"></div>
<div><label for="refund-reason">Reason</label><select id="refund-reason" name="reason"><option value="">None given</option>
${REASONS.map((reason) => html`<option value="${reason}">${words(reason)}</option>`)}</select></div>
<div><button type="submit">Review the refund</button></div>
<p class="muted">You confirm the amount on the next step. The status changes when the processor confirms.</p></form>`
    : ""
}

${
  disputes.length > 0
    ? html`<h2>Disputes</h2>
<div class="table-wrap"><table id="payment-disputes"><thead><tr><th>Opened</th><th class="num">Amount</th><th>Reason</th><th>Status</th><th>Evidence due by</th><th></th></tr></thead><tbody>
${disputes.map(
  (dispute) =>
    html`<tr><td>${time(new Date(dispute.createdAt))}</td><td class="num">${money(dispute.amount, dispute.currency)}</td><td>${words(dispute.reason)}</td><td>${statusBadge(dispute.status)}</td><td>${dispute.evidenceDueBy ? time(new Date(dispute.evidenceDueBy)) : "—"}</td><td><a href="/dashboard/disputes/${dispute.disputeId}">Open</a></td></tr>`,
)}</tbody></table></div>`
    : ""
}

<h2>Webhook events</h2>
${
  payment.dropped_webhook_host
    ? html`<p class="notice" id="dropped-webhook-url" role="note">The webhookUrl given at create (host <span class="mono">${payment.dropped_webhook_host}</span>) was dropped: its host is loopback, private or reserved, or the URL is not valid, so no webhook is sent for this payment. Its events are still listed here and on the API. For local development, run <span class="mono">checkout listen</span> or list the host in ALLOWED_PRIVATE_HOSTS.</p>`
    : ""
}
${
  events.length === 0
    ? html`<p class="muted">No events.</p>`
    : events.map(
        (event) => html`<section class="card event" id="event-${event.eventId}">
<h3>${event.type} <span class="muted mono">${event.eventId}</span></h3>
<p>Created ${time(new Date(event.createdAt))}</p>
${event.deliveries.map(
  (
    delivery,
  ) => html`<p>Delivery to <span class="mono">${delivery.url}</span>: ${statusBadge(delivery.state)}</p>
<div class="table-wrap"><table class="attempts"><thead><tr><th>Attempt</th><th>When</th><th>Status code</th><th class="num">Duration</th><th>The receiver's answer</th></tr></thead><tbody>
${delivery.attempts.map(
  (attempt) =>
    html`<tr><td>${attempt.attempt}</td><td>${time(new Date(attempt.attemptedAt))}</td><td>${attempt.statusCode ?? "—"}</td><td class="num">${attempt.durationMs ?? "—"} ms</td><td>${attempt.error ?? (attempt.answer ? html`<code class="answer">${attempt.answer}</code>` : html`<span class="muted">(empty)</span>`)}</td></tr>`,
)}</tbody></table></div>`,
)}
${
  mayResend && event.deliveries.length > 0
    ? html`<form method="post" action="/dashboard/payments/${payment.id}/events/${event.eventId}/resend">${csrfField(reply)}<button type="submit" class="secondary">Resend</button></form>`
    : ""
}</section>`,
      )
}`,
      );
    },
  );

  app.post(
    "/dashboard/payments/:transactionId/refunds",
    { schema: { params: paymentParams, body: refundForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "refund");
      const { transactionId } = request.params as { transactionId: string };
      const form = request.body as { amount?: string; reason?: string; key: string; confirm?: string };
      const back = `/dashboard/payments/${transactionId}`;
      const payment = await payments.queries.get(principal.groupId, transactionId);
      const { currency } = payment;
      // Money leaves on a second step, for the amount typed: an empty field refunds nothing.
      const reading = readAmount(form.amount?.trim() ?? "", currency);
      const remaining = refundableAmount(payment, "merchant");
      if (!("minor" in reading) || reading.minor === 0) {
        setFlash(request, {
          kind: "error",
          text: `Enter the amount to refund, such as ${majorUnits(1250, currency)} (at most ${money(remaining, currency)}).`,
        });
        return reply.redirect(back, 303);
      }
      const amount = reading.minor;
      if (amount > remaining) {
        setFlash(request, {
          kind: "error",
          text: `At most ${money(remaining, currency)} remains to refund.`,
        });
        return reply.redirect(back, 303);
      }
      if (form.confirm !== "true") {
        const customer = payment.erased_at ? "the customer" : payment.customer_email;
        return dashboardPage(
          request,
          reply,
          "Confirm the refund",
          html`<p><a href="${back}">← Payment</a></p>
<form method="post" action="${back}/refunds" class="card" id="refund-confirm">${csrfField(reply)}
<p role="alert"><strong>Refund ${money(amount, currency)} of ${money(payment.amount, currency)} to ${customer}?</strong> The money goes back to the customer's card. This cannot be undone.</p>
<input type="hidden" name="amount" value="${majorUnits(amount, currency)}"><input type="hidden" name="reason" value="${form.reason ?? ""}">
<input type="hidden" name="key" value="${form.key}"><input type="hidden" name="confirm" value="true">
<p><button type="submit" class="danger">Refund ${money(amount, currency)}</button> <a href="${back}">Cancel</a></p></form>`,
        );
      }
      try {
        const { result: refund } = await payments.refunds.create(
          principal.groupId,
          transactionId,
          { amount, ...(form.reason && { reason: form.reason as RefundReason }) },
          {
            requestedBy: auditContext(request).actor,
            idempotencyKey: `dashboard-${form.key}`,
            audit: (made) =>
              auditBy(request, principal.groupId, "payment.refunded", transactionId, {
                refundId: made.refundId,
                amount: made.amount,
              }),
          },
        );
        setFlash(request, {
          kind: "ok",
          text: `Refund of ${money(refund.amount, refund.currency)} requested.`,
        });
      } catch (error) {
        // What the merchant can act on is shown on the page; not-found and outages answer as usual.
        if (!(error instanceof DomainError) || error.code === "NOT_FOUND") throw error;
        setFlash(request, { kind: "error", text: error.message });
      }
      return reply.redirect(back, 303);
    },
  );

  app.post(
    "/dashboard/payments/:transactionId/events/:eventId/resend",
    // The API's limit for a resend (30 a minute), per group.
    { schema: { params: eventParams }, config: { rateLimit: { max: 30, timeWindow: 60_000 } } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "resend_webhook");
      const { transactionId, eventId } = request.params as { transactionId: string; eventId: string };
      await webhooks.replays.resend({ groupId: principal.groupId, transactionId, eventId }, () =>
        auditBy(request, principal.groupId, "webhook.resent", eventId, { transactionId }),
      );
      setFlash(request, {
        kind: "ok",
        text: "Queued for delivery again. Reload in a moment to see the attempt.",
      });
      return reply.redirect(`/dashboard/payments/${transactionId}#event-${eventId}`, 303);
    },
  );
};

export default paymentDetailPages;
