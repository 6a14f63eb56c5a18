import type { FastifyPluginAsync } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import type { ReconciliationItemKind } from "../../payments/core/store.ts";
import type { Payments } from "../../payments/module.ts";
import type { ProcessorActivityRow } from "../../payments/queries/store.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { money } from "../../platform/format/money.ts";
import { UUID_PATTERN_SOURCE } from "../../platform/format/uuid.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { NUMERIC_ID_PATTERN, OPTIONAL_UUID_PATTERN } from "../../platform/http/schemas.ts";
import { recoveryWindowFromForm } from "../../platform/http/window.ts";
import type { RedisLink } from "../../platform/limits/redis-link.ts";
import { processorTitle } from "../../processor/catalog.ts";
import { checkDatabase } from "../../server/health/routes.ts";
import type { WebhookEvents } from "../../webhooks/module.ts";
import { auditBy, auditContext } from "../kit/audit.ts";
import { auditQuery, sendAuditLog } from "../kit/audit-view.ts";
import { time } from "../kit/format.ts";
import { formBody, windowFields } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { statusBadge } from "../kit/labels.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { consolePage } from "./common.ts";

const QUEUE_SHOWN = 200;
const ITEM_TITLES: Record<ReconciliationItemKind, string> = {
  paid_after_cancel: "Paid after it was cancelled",
  paid_after_expiry: "Paid after it expired",
  disputed_after_close: "Disputed after it was closed",
  checkout_missing: "Checkout missing at the processor",
  processor_mismatch: "Processor event did not match",
  drift: "Differs from the processor",
  orphan_checkout_paid: "Paid on a checkout a create abandoned",
  unbooked_payment: "Paid at the processor, missing from the books",
};
const resolveForm = formBody(
  {
    id: { type: "string", pattern: NUMERIC_ID_PATTERN },
    note: { type: "string", minLength: 3, maxLength: 2000 },
  },
  ["id", "note"],
);
const refundForm = formBody({ transactionId: { type: "string", pattern: UUID_PATTERN_SOURCE } }, [
  "transactionId",
]);
const orphanRefundForm = formBody({ id: { type: "string", pattern: NUMERIC_ID_PATTERN } }, ["id"]);
const recoverForm = formBody(
  { ...windowFields, groupId: { type: "string", pattern: OPTIONAL_UUID_PATTERN } },
  ["since"],
);

/** The operator's queues and the service's health: reconciliation, failed deliveries, audit. */
const operationsPages: FastifyPluginAsync<{
  db: Database;
  redis: RedisLink | undefined;
  payments: Payments;
  webhooks: WebhookEvents;
  accounts: Accounts;
}> = async (app, { db, redis, payments, webhooks, accounts }) => {
  app.get("/operator/reconciliation", async (request, reply) => {
    const items = await payments.reconciliation.queue(QUEUE_SHOWN);
    return consolePage(
      request,
      reply,
      "Reconciliation",
      html`<h1>Reconciliation queue</h1>
<p class="muted">What differs from the processor, or needs a person: money taken on a payment already closed, checkouts the processor forgot, processor events that did not match their payment, and differences a reconciliation run could not repair. Settle each, then resolve it here with a note.</p>
${
  items.length === 0
    ? html`<p class="card" id="queue-empty">Nothing to reconcile.</p>`
    : items.map(
        (item) => html`<section class="card reconciliation-item" id="item-${item.id}">
<h2>${ITEM_TITLES[item.kind]}</h2>
<dl class="facts"><dt>Flagged</dt><dd>${time(new Date(item.flaggedAt))}</dd>
<dt>Transaction</dt><dd class="mono">${item.transactionId ?? "—"}</dd><dt>Group</dt><dd class="mono">${item.groupId ?? "—"}</dd>
${
  item.amount !== null && item.currency !== null
    ? html`<dt>Amount</dt><dd>${money(item.amount, item.currency)}${
        item.status
          ? html` · ${statusBadge(item.status)} · refunded ${money(item.amountRefunded ?? 0, item.currency)}`
          : ""
      }</dd>`
    : ""
}
<dt>Processor payment</dt><dd class="mono">${item.processor ? html`${item.processor} · ` : ""}${item.processorPaymentId ?? "—"}</dd>
${item.processorEventId ? html`<dt>Event</dt><dd class="mono">${item.processorEventId}</dd>` : ""}
<dt>Reason</dt><dd>${item.reason}</dd></dl>
${
  (item.kind === "orphan_checkout_paid" || item.kind === "unbooked_payment") &&
  item.currency &&
  item.refundable > 0
    ? html`<form method="post" action="/operator/reconciliation/orphan-refund">${csrfField(reply)}
<input type="hidden" name="id" value="${item.id}">
<p><button type="submit" class="danger">Refund ${money(item.refundable, item.currency)} in full</button></p></form>`
    : item.refundable > 0 && item.transactionId && item.currency
      ? html`<form method="post" action="/operator/reconciliation/refund">${csrfField(reply)}
<input type="hidden" name="transactionId" value="${item.transactionId}">
<p><button type="submit" class="danger">Refund ${money(item.refundable, item.currency)} in full</button></p></form>`
      : ""
}
<form method="post" action="/operator/reconciliation/resolve">${csrfField(reply)}
<input type="hidden" name="id" value="${item.id}">
<label for="note-${item.id}">Resolution note</label><textarea id="note-${item.id}" name="note" rows="2" cols="60" required minlength="3" maxlength="2000"></textarea>
<p><button type="submit">Resolve</button></p></form></section>`,
      )
}`,
    );
  });

  app.post("/operator/reconciliation/resolve", { schema: { body: resolveForm } }, async (request, reply) => {
    const form = request.body as { id: string; note: string };
    const note = form.note.trim();
    const resolved = await payments.reconciliation.resolve(form.id, note, (done) =>
      done ? auditBy(request, null, "reconciliation.resolved", form.id, { note }) : null,
    );
    if (!resolved) throw new ApiError("NOT_FOUND", "That item is not in the queue (already resolved?)");
    setFlash(request, { kind: "ok", text: "Resolved." });
    return reply.redirect("/operator/reconciliation", 303);
  });

  app.post("/operator/reconciliation/refund", { schema: { body: refundForm } }, async (request, reply) => {
    const { transactionId } = request.body as { transactionId: string };
    try {
      const refund = await payments.refunds.createForOperator(
        transactionId,
        auditContext(request).actor,
        (made, groupId) =>
          auditBy(request, groupId, "payment.refunded", transactionId, {
            refundId: made.refundId,
            amount: made.amount,
          }),
      );
      setFlash(request, {
        kind: "ok",
        text: `Refund of ${money(refund.amount, refund.currency)} ${refund.status === "pending" ? "requested (pending at the processor)" : "made"}.`,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "NOT_FOUND") throw error;
      setFlash(request, { kind: "error", text: error.message });
    }
    return reply.redirect("/operator/reconciliation", 303);
  });

  app.post(
    "/operator/reconciliation/orphan-refund",
    { schema: { body: orphanRefundForm } },
    async (request, reply) => {
      const { id } = request.body as { id: string };
      try {
        const refund = await payments.orphans.refund(id, (made) =>
          auditBy(request, null, "orphan.refunded", id, { ...made }),
        );
        setFlash(request, {
          kind: "ok",
          text: `Refund of ${money(refund.amount, refund.currency)} ${refund.status === "pending" ? "requested (pending at the processor)" : "made"}; the item is resolved.`,
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === "NOT_FOUND") throw error;
        setFlash(request, { kind: "error", text: error.message });
      }
      return reply.redirect("/operator/reconciliation", 303);
    },
  );

  app.get("/operator/deliveries", async (request, reply) => {
    const failed = await webhooks.log.failedDeliveries(QUEUE_SHOWN);
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
    return consolePage(
      request,
      reply,
      "Failed deliveries",
      html`<h1>Failed deliveries</h1>
<form method="post" action="/operator/deliveries/recover" class="card row">${csrfField(reply)}
<div><label for="since">Failed since (UTC)</label><input id="since" name="since" type="datetime-local" value="${dayAgo}" required></div>
<div><label for="until">Until (UTC, empty for now)</label><input id="until" name="until" type="datetime-local"></div>
<div><label for="group">Group ID (empty for all)</label><input id="group" name="groupId" size="36"></div>
<div><button type="submit">Send them again</button></div></form>
${
  failed.length === 0
    ? html`<p class="card">No failed deliveries.</p>`
    : html`<div class="table-wrap"><table id="failed"><thead><tr><th>Failed</th><th>Event</th><th>Group</th><th>URL</th><th class="num">Attempts</th><th>Last answer</th></tr></thead><tbody>
${failed.map(
  (row) =>
    html`<tr><td>${time(new Date(row.failedAt))}</td><td>${row.event}<br><span class="mono muted">${row.eventId}</span></td><td class="mono">${row.groupId}</td><td class="mono">${row.url}</td><td class="num">${row.attempts}</td><td>${row.lastStatusCode ?? ""} ${row.lastError ?? ""}</td></tr>`,
)}</tbody></table></div>`
}`,
    );
  });

  app.post("/operator/deliveries/recover", { schema: { body: recoverForm } }, async (request, reply) => {
    const form = request.body as { since: string; until?: string; groupId?: string };
    const window = recoveryWindowFromForm(form);
    if (!window) {
      setFlash(request, { kind: "error", text: "Choose a start before the end of the window." });
      return reply.redirect("/operator/deliveries", 303);
    }
    const { since, until } = window;
    const groupId = form.groupId || null;
    const { queued } = await webhooks.replays.recover({ groupId, since, until }, (count) =>
      auditBy(request, groupId, "webhooks.recovered", groupId, { since, until, queued: count }),
    );
    setFlash(request, {
      kind: "ok",
      text: `${queued} event${queued === 1 ? "" : "s"} queued for delivery again.`,
    });
    return reply.redirect("/operator/deliveries", 303);
  });

  app.get("/operator/health", async (request, reply) => {
    const database = await checkDatabase(db, request.log);
    const since = new Date(Date.now() - ACTIVITY_WINDOW_MS);
    const [depth, oldest, activity] = database.ok
      ? await Promise.all([
          webhooks.log.queueDepth(),
          webhooks.log.oldestUndelivered(),
          payments.queries.processorActivity(since),
        ])
      : [null, null, null];
    const redisState = redis?.state();
    return consolePage(
      request,
      reply,
      "Health",
      html`<h1>Health</h1><div class="grid">
<div class="card stat"><div class="value">${database.ok ? html`<span class="badge ok">ok</span>` : html`<span class="badge unavailable">unavailable</span>`}</div><div class="label">database${database.ok ? ` · ${database.latencyMs} ms` : ""}</div></div>
<div class="card stat"><div class="value">${redisState ? html`${statusBadge(redisState.status)}` : "not configured"}</div><div class="label">Redis (shared rate limits)</div></div>
<div class="card stat"><div class="value" id="queue-depth">${depth ?? "—"}</div><div class="label">webhook deliveries waiting</div></div>
<div class="card stat"><div class="value">${oldest ? time(oldest) : "none"}</div><div class="label">oldest undelivered event queued</div></div>
</div>
${processorTable(payments, activity)}`,
    );
  });

  app.get("/operator/audit", { schema: { querystring: auditQuery } }, async (request, reply) =>
    sendAuditLog(accounts, request, reply, "operator", null),
  );
};

/** How far back the health page counts each processor's creates. */
const ACTIVITY_WINDOW_MS = 3_600_000;

/** The processors in the default route's order: answering or skipped, what they take, their last hour. */
function processorTable(payments: Payments, activity: ProcessorActivityRow[] | null) {
  const rows = payments.routing.defaultRoute.map((name) => {
    const counted = activity?.find((row) => row.processor === name);
    const state = payments.breakers.status(name);
    return html`<tr id="processor-${name}"><td>${processorTitle(name)}</td><td>${
      state === "ok"
        ? html`<span class="badge ok">answering</span>`
        : html`<span class="badge unavailable">failing</span> <span class="muted">skipped by new payments for now</span>`
    }</td><td>${
      payments.routing
        .currenciesOf(name)
        .map((currency) => currency.toUpperCase())
        .join(", ") || html`<span class="muted">none yet</span>`
    }</td><td class="num">${counted?.created ?? (activity ? 0 : "—")}</td><td class="num">${counted?.passed_over ?? (activity ? 0 : "—")}</td></tr>`;
  });
  return html`<h2>Processors</h2>
<div class="table-wrap"><table id="processors"><caption class="skip">Processors in the default route's order</caption>
<thead><tr><th>Processor</th><th>State</th><th>Takes</th><th class="num">Payments, last hour</th><th class="num">Passed over, last hour</th></tr></thead><tbody>
${rows}</tbody></table></div>
<p class="muted">A processor is failing when creates in a row got no definite answer; new payments then go to the route's other processors until it answers again. "Passed over": creates that went to the next processor because this one did not answer in time, lost the connection, or was failing.</p>`;
}

export default operationsPages;
