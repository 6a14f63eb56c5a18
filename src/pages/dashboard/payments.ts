import { Readable } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import { PAYMENT_STATUSES, type PaymentStatus } from "../../payments/core/status.ts";
import type { ProcessorBreakers } from "../../payments/create/breakers.ts";
import type { PaymentQueries } from "../../payments/queries/service.ts";
import type { PaymentFilter, PaymentSummaryRow } from "../../payments/queries/store.ts";
import { money } from "../../platform/format/money.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { OPTIONAL_UUID_PATTERN } from "../../platform/http/schemas.ts";
import { describedPattern } from "../../platform/http/validation-messages.ts";
import { storableTime } from "../../platform/http/window.ts";
import { processorTitle } from "../../processor/catalog.ts";
import { time } from "../kit/format.ts";
import { html } from "../kit/html.ts";
import { paymentStatusBadge, paymentStatusWord } from "../kit/labels.ts";
import { dashboardPage, merchantOf } from "./common.ts";

const PAGE_SIZE = 50;
const CSV_BATCH = 500;
const CSV_HEADER =
  "transactionId,status,amount,currency,amountRefunded,customerEmail,description,createdAt,completedAt";

const DAY_PATTERN = describedPattern(
  "^(\\d{4}-\\d{2}-\\d{2}(T\\S+)?)?$",
  "must be a date such as 2026-11-01",
);

/** The list's and the export's filters. Empty fields mean "any". */
const paymentFilterQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    status: { type: "string", enum: ["", ...PAYMENT_STATUSES] },
    from: { type: "string", maxLength: 40, pattern: DAY_PATTERN },
    to: { type: "string", maxLength: 40, pattern: DAY_PATTERN },
    // Control characters (NUL first) are no address and no id: refused before any query runs.
    q: {
      type: "string",
      maxLength: 320,
      pattern: describedPattern("^[^\\u0000-\\u001f\\u007f]*$", "must not hold control characters"),
    },
    after: { type: "string", pattern: OPTIONAL_UUID_PATTERN },
    paymentLinkId: { type: "string", pattern: OPTIONAL_UUID_PATTERN },
  },
} as const;

interface FilterQuery {
  status?: string;
  from?: string;
  to?: string;
  q?: string;
  after?: string;
  paymentLinkId?: string;
}

const DAY_MS = 86_400_000;

/**
 * A filter bound as a time the database stores. A day (YYYY-MM-DD, UTC, what the form's date
 * input sends) counts from its midnight, `afterDays` later; a full ISO 8601 time is taken as it is.
 * Refused (400) when it is no calendar day (2026-02-31) or outside the years the API accepts.
 */
function filterTime(text: string | undefined, name: string, afterDays = 0): Date | undefined {
  if (!text) return undefined;
  if (text.includes("T")) return storableTime(text, name);
  const day = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) {
    throw new ApiError("INVALID_REQUEST", `${name} must be a calendar day (YYYY-MM-DD) or an ISO 8601 time`);
  }
  return storableTime(new Date(day.getTime() + afterDays * DAY_MS).toISOString(), name);
}

/** `to` as a day includes it: payments created before the next midnight UTC. */
function toPaymentFilter(query: FilterQuery): PaymentFilter {
  const search = query.q?.trim() ?? "";
  return {
    status: (query.status || undefined) as PaymentStatus | undefined,
    from: filterTime(query.from, "from"),
    to: filterTime(query.to, "to", 1),
    transactionId: UUID_PATTERN.test(search) ? search.toLowerCase() : undefined,
    customerEmail: search && !UUID_PATTERN.test(search) ? search : undefined,
    afterId: query.after || undefined,
    paymentLinkId: query.paymentLinkId || undefined,
  };
}

const filterParams = (query: FilterQuery) => {
  const params = new URLSearchParams();
  for (const name of ["status", "from", "to", "q", "paymentLinkId"] as const) {
    const value = query[name];
    if (value) params.set(name, value);
  }
  return params;
};

/**
 * What a spreadsheet runs as a formula when a cell starts with it (OWASP's list), after any spaces
 * and the quotes a reader removes.
 */
const FORMULA_START = /^[ "]*[=+\-@\t\r]/;
/**
 * A separator some spreadsheet splits a line or a cell on (`,`, `;` in much of Europe, a tab),
 * then spaces and quotes, then a formula's first character: the start of a piece for a reader
 * that splits there, whether or not it honours quotes.
 */
const FORMULA_AFTER_SEPARATOR = /([,;\t][ "]*)([=+\-@])/g;

/**
 * One CSV field. A text is neutralised with an apostrophe wherever a piece could start that a
 * spreadsheet would run as a formula, whichever of `,`, `;` or a tab it splits on; a field holding
 * any of those, a quote or a line break is quoted.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string") {
    if (FORMULA_START.test(text)) text = `'${text}`;
    text = text.replace(FORMULA_AFTER_SEPARATOR, "$1'$2");
  }
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (row: PaymentSummaryRow) =>
  `${[
    row.id,
    row.status,
    row.amount,
    row.currency,
    row.refunded_amount,
    row.customer_email,
    row.description,
    row.created_at,
    row.completed_at,
  ]
    .map(csvField)
    .join(",")}\r\n`;

/** /dashboard/payments and its CSV export, both by keyset so any depth costs the same. */
const paymentListPages: FastifyPluginAsync<{ queries: PaymentQueries; breakers: ProcessorBreakers }> = async (
  app,
  { queries, breakers },
) => {
  app.get("/dashboard/payments", { schema: { querystring: paymentFilterQuery } }, async (request, reply) => {
    const principal = merchantOf(request);
    const query = request.query as FilterQuery;
    const rows = await queries.listSummaries(principal.groupId, toPaymentFilter(query), PAGE_SIZE + 1);
    const page = rows.slice(0, PAGE_SIZE);
    const next = rows.length > PAGE_SIZE ? page[page.length - 1] : undefined;
    const params = filterParams(query);
    const nextParams = new URLSearchParams(params);
    if (next) nextParams.set("after", next.id);
    return dashboardPage(
      request,
      reply,
      "Payments",
      html`<h1>Payments</h1>
<form method="get" action="/dashboard/payments" class="card row" role="search">
<div><label for="q">Transaction ID or customer email</label><input id="q" name="q" type="search" value="${query.q ?? ""}" size="32"></div>
<div><label for="status">Status</label><select id="status" name="status"><option value="">Any</option>
${PAYMENT_STATUSES.map((status) => html`<option value="${status}"${query.status === status ? html` selected` : ""}>${paymentStatusWord(status)}</option>`)}</select></div>
<div><label for="from">Created from (UTC)</label><input id="from" name="from" type="date" value="${query.from ?? ""}"></div>
<div><label for="to">to (UTC, inclusive)</label><input id="to" name="to" type="date" value="${query.to ?? ""}"></div>
<div><button type="submit">Filter</button></div>
<div><a class="button secondary" href="/dashboard/payments.csv?${params.toString()}" download>Export CSV</a></div>
</form>
${
  page.length === 0
    ? html`<p class="card">No payments match.</p>`
    : html`<div class="table-wrap"><table class="stack" id="payments"><caption class="skip">Payments, newest first</caption>
<thead><tr><th>Created</th><th>Customer</th><th>Description</th><th class="num">Amount</th><th>Processor</th><th>Status</th></tr></thead><tbody>
${page.map(
  (
    row,
  ) => html`<tr><td class="when"><a href="/dashboard/payments/${row.id}">${time(row.created_at)}</a></td><td class="who">${row.customer_email ?? html`<span class="muted">erased</span>`}</td>
<td class="what">${row.link_name ? html`<span class="link-name">${row.link_name}</span>${row.description ? " · " : ""}` : ""}${row.description ?? ""}</td><td class="num">${money(row.amount, row.currency)}${row.refunded_amount > 0 ? html`<br><span class="muted">−${money(row.refunded_amount, row.currency)} refunded</span>` : ""}</td>
<td class="via">${processorTitle(row.processor)}${breakers.status(row.processor) === "skipped" ? html` <span class="badge unavailable" title="Not answering: new payments go to the route's other processors">failing</span>` : ""}</td><td class="state">${paymentStatusBadge(row.status)}</td></tr>`,
)}</tbody></table></div>`
}
<nav class="pager" aria-label="Pages">${query.after ? html`<a href="/dashboard/payments?${params.toString()}">First page</a>` : ""}
${next ? html`<a href="/dashboard/payments?${nextParams.toString()}" rel="next">Older payments</a>` : ""}</nav>`,
    );
  });

  app.get(
    "/dashboard/payments.csv",
    { schema: { querystring: paymentFilterQuery } },
    async (request, reply) => {
      const principal = merchantOf(request);
      const filter = toPaymentFilter(request.query as FilterQuery);
      async function* lines() {
        yield `${CSV_HEADER}\r\n`;
        let afterId = filter.afterId;
        for (;;) {
          const rows = await queries.listSummaries(principal.groupId, { ...filter, afterId }, CSV_BATCH);
          if (rows.length > 0) yield rows.map(csvLine).join("");
          if (rows.length < CSV_BATCH) return;
          afterId = rows[rows.length - 1]?.id;
        }
      }
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="payments-${day}.csv"`)
        .send(Readable.from(lines()));
    },
  );
};

export default paymentListPages;
