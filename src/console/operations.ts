import type { FastifyPluginAsync } from "fastify";
import { auditQuery, sendAuditLog } from "../accounts/audit-view.ts";
import type { AccountsService } from "../accounts/service.ts";
import { auditBy } from "../dashboard/common.ts";
import type { Database } from "../db/database.ts";
import { checkDatabase } from "../health/routes.ts";
import { ApiError } from "../http/errors.ts";
import type { RedisLink } from "../http/rate-limit-store.ts";
import { UUID_PATTERN_SOURCE } from "../http/schemas.ts";
import type { PaymentsService } from "../payments/service.ts";
import { money, time } from "../web/format.ts";
import { formBody, windowFields } from "../web/forms.ts";
import { html } from "../web/html.ts";
import { csrfField, setFlash } from "../web/layout.ts";
import { recoveryWindowFromForm } from "../webhooks/routes/window.ts";
import type { WebhookService } from "../webhooks/service.ts";
import { consolePage } from "./common.ts";

const QUEUE_SHOWN = 200;
const resolveForm = formBody(
  {
    kind: { type: "string", enum: ["paid_after_close", "processor_mismatch"] },
    id: { type: "string", minLength: 1, maxLength: 255 },
    note: { type: "string", minLength: 3, maxLength: 2000 },
  },
  ["kind", "id", "note"],
);
const recoverForm = formBody(
  { ...windowFields, groupId: { type: "string", pattern: `^(${UUID_PATTERN_SOURCE.slice(1, -1)})?$` } },
  ["since"],
);

/** The operator's queues and the service's health: reconciliation, failed deliveries, audit. */
const operationsPages: FastifyPluginAsync<{
  db: Database;
  redis: RedisLink | undefined;
  payments: PaymentsService;
  webhooks: WebhookService;
  accounts: AccountsService;
}> = async (app, { db, redis, payments, webhooks, accounts }) => {
  app.get("/operator/reconciliation", async (request, reply) => {
    const items = await payments.reconciliationQueue(QUEUE_SHOWN);
    return consolePage(
      request,
      reply,
      "Reconciliation",
      html`<h1>Reconciliation queue</h1>
<p class="muted">Money that moved on a payment already closed, and processor events that did not match the payment they named. Settle each at the processor, then resolve it here with a note.</p>
${
  items.length === 0
    ? html`<p class="card" id="queue-empty">Nothing to reconcile.</p>`
    : items.map((item) => {
        const id = item.kind === "paid_after_close" ? item.transactionId : item.processorEventId;
        return html`<section class="card reconciliation-item" id="item-${id}">
<h2>${item.kind === "paid_after_close" ? "Paid after it was closed" : "Processor event did not match"}</h2>
<dl class="facts"><dt>Flagged</dt><dd>${time(new Date(item.flaggedAt))}</dd>
<dt>Transaction</dt><dd class="mono">${item.transactionId ?? "—"}</dd><dt>Group</dt><dd class="mono">${item.groupId ?? "—"}</dd>
${item.kind === "paid_after_close" ? html`<dt>Amount</dt><dd>${money(item.amount, item.currency)}</dd><dt>Payment intent</dt><dd class="mono">${item.processorPaymentIntentId ?? "—"}</dd>` : html`<dt>Event</dt><dd class="mono">${item.processorEventId} (${item.processorEventType})</dd>`}
<dt>Reason</dt><dd>${item.reason ?? "—"}</dd></dl>
<form method="post" action="/operator/reconciliation/resolve">${csrfField(reply)}
<input type="hidden" name="kind" value="${item.kind}"><input type="hidden" name="id" value="${id ?? ""}">
<label for="note-${id}">Resolution note</label><textarea id="note-${id}" name="note" rows="2" cols="60" required minlength="3" maxlength="2000"></textarea>
<p><button type="submit">Resolve</button></p></form></section>`;
      })
}`,
    );
  });

  app.post("/operator/reconciliation/resolve", { schema: { body: resolveForm } }, async (request, reply) => {
    const form = request.body as {
      kind: "paid_after_close" | "processor_mismatch";
      id: string;
      note: string;
    };
    const note = form.note.trim();
    const resolved = await payments.resolveReconciliation({ kind: form.kind, id: form.id }, note, (done) =>
      done ? auditBy(request, null, "reconciliation.resolved", form.id, { kind: form.kind, note }) : null,
    );
    if (!resolved) throw new ApiError("NOT_FOUND", "That item is not in the queue (already resolved?)");
    setFlash(request, { kind: "ok", text: "Resolved." });
    return reply.redirect("/operator/reconciliation", 303);
  });

  app.get("/operator/deliveries", async (request, reply) => {
    const failed = await webhooks.failedDeliveries(QUEUE_SHOWN);
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
    const { queued } = await webhooks.recover({ groupId, since, until }, (count) =>
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
    const [depth, oldest] = database.ok
      ? await Promise.all([webhooks.queueDepth(), webhooks.oldestUndelivered()])
      : [null, null];
    const redisState = redis?.state();
    return consolePage(
      request,
      reply,
      "Health",
      html`<h1>Health</h1><div class="grid">
<div class="card stat"><div class="value">${database.ok ? html`<span class="badge ok">ok</span>` : html`<span class="badge unavailable">unavailable</span>`}</div><div class="label">database${database.ok ? ` · ${database.latencyMs} ms` : ""}</div></div>
<div class="card stat"><div class="value">${redisState ? html`<span class="badge ${redisState.status}">${redisState.status}</span>` : "not configured"}</div><div class="label">Redis (shared rate limits)</div></div>
<div class="card stat"><div class="value" id="queue-depth">${depth ?? "—"}</div><div class="label">webhook deliveries waiting</div></div>
<div class="card stat"><div class="value">${oldest ? time(oldest) : "none"}</div><div class="label">oldest undelivered event queued</div></div>
</div>`,
    );
  });

  app.get("/operator/audit", { schema: { querystring: auditQuery } }, async (request, reply) =>
    sendAuditLog(accounts, request, reply, "operator", null),
  );
};

export default operationsPages;
