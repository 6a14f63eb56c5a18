// Read-only statements: listings, history and totals.
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";
import type { Currency } from "../../platform/format/money.ts";
import type { PaymentStatus } from "../core/status.ts";
import { type PaymentResourceRow, RESOURCE_COLUMNS, RESOURCE_FIELDS } from "../core/store.ts";

export interface PaymentFilter {
  status?: PaymentStatus | undefined;
  /** created_at at or after */
  from?: Date | undefined;
  /** created_at before */
  to?: Date | undefined;
  transactionId?: string | undefined;
  customerEmail?: string | undefined;
  paymentLinkId?: string | undefined;
  /** Keyset cursor: rows after this payment in the listing's order (newest first). */
  afterId?: string | undefined;
}

/** What the resource shows and the dashboard's list and its CSV export do not. */
const NOT_SUMMARISED = [
  "metadata",
  "processor_checkout_id",
  "processor_payment_id",
  "paid_at_processor",
  "payment_link_id",
  "erased_at",
] as const;

/**
 * Shown as ISO 8601 text, so read as it: a Date parsed for each of them was only formatted back.
 * The listing orders by the table's column, not this text of the same name.
 */
const ISO_TIMES = ["created_at", "completed_at"] as const;

/** A payment as the dashboard's list and its CSV export show it; times as ISO 8601 UTC text. */
export type PaymentSummaryRow = Omit<
  PaymentResourceRow,
  (typeof NOT_SUMMARISED)[number] | (typeof ISO_TIMES)[number]
> & { created_at: string; completed_at: string | null };

const SUMMARY_COLUMNS = RESOURCE_FIELDS.filter(
  (field) => !(NOT_SUMMARISED as readonly string[]).includes(field),
)
  .map((field) =>
    (ISO_TIMES as readonly string[]).includes(field)
      ? `to_char(${field} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${field}`
      : field,
  )
  .join(", ");

/**
 * A group's payments, newest first, by keyset so a page costs the same at any depth. Each listing
 * reads only the columns it shows: the API's list the resource's, the dashboard's list and its CSV
 * export a summary's (metadata, processor ids: parsed for every row, shown nowhere).
 * The statement holds only the filters given, so each shape has one plan on its own index (the
 * listing's, the status's or the email's). Every shape but a date range is prepared: its plan does
 * not depend on the values; a range's selectivity does.
 */
function listing<Row>(columns: string) {
  return (q: Queryable, groupId: string, filter: PaymentFilter, limit: number): Promise<Row[]> => {
    const params: unknown[] = [groupId];
    const conditions = ["group_id = $1"];
    const where = (condition: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      conditions.push(condition(`$${params.length}`));
    };
    if (filter.status) where((p) => `status = ${p}`, filter.status);
    if (filter.from) where((p) => `created_at >= ${p}`, filter.from);
    if (filter.to) where((p) => `created_at < ${p}`, filter.to);
    if (filter.transactionId) where((p) => `id = ${p}::uuid`, filter.transactionId);
    if (filter.customerEmail) where((p) => `lower(customer_email) = lower(${p}::text)`, filter.customerEmail);
    if (filter.paymentLinkId) where((p) => `payment_link_id = ${p}::uuid`, filter.paymentLinkId);
    // A cursor names a payment of this group only: another group's id is no position here, and
    // an empty page tells nothing of it.
    if (filter.afterId)
      where(
        (p) =>
          `(created_at, id) < (SELECT created_at, id FROM payments WHERE id = ${p}::uuid AND group_id = $1)`,
        filter.afterId,
      );
    params.push(limit);
    const sql = `SELECT ${columns} FROM payments WHERE ${conditions.join(" AND ")}
     ORDER BY payments.created_at DESC, payments.id DESC LIMIT $${params.length}`;
    return q.query<Row>(filter.from || filter.to ? sql : prepared(sql), params);
  };
}

export const listPayments = listing<PaymentResourceRow>(RESOURCE_COLUMNS);
/** A payment made through a link carries the link's name, which the dashboard shows. */
export const listPaymentSummaries = listing<PaymentSummaryRow & { link_name: string | null }>(
  `${SUMMARY_COLUMNS}, (SELECT l.name FROM payment_links l WHERE l.id = payments.payment_link_id) AS link_name`,
);

/** The name of the link a payment was made through; null for one made through the API. */
/** The payment link a payment was made through, as its customer pages name and offer it. */
export interface PaymentLinkSummary {
  name: string;
  active: boolean;
  /** The link's page: a customer who did not pay can start again there. */
  url: string;
}

export async function findPaymentLinkSummary(
  q: Queryable,
  paymentLinkId: string | null,
): Promise<PaymentLinkSummary | null> {
  if (paymentLinkId === null) return null;
  const [row] = await q.query<PaymentLinkSummary>(
    "SELECT name, active, site_url || '/l/' || slug AS url FROM payment_links WHERE id = $1",
    [paymentLinkId],
  );
  return row ?? null;
}

export interface StatusChangeRow {
  from_status: PaymentStatus | null;
  to_status: PaymentStatus;
  reason: string;
  created_at: Date;
}

export function listStatusChanges(q: Queryable, paymentId: string): Promise<StatusChangeRow[]> {
  return q.query<StatusChangeRow>(
    "SELECT from_status, to_status, reason, created_at FROM payment_status_changes WHERE payment_id = $1 ORDER BY id",
    [paymentId],
  );
}

export interface DailyTotalRow {
  day: string;
  status: PaymentStatus;
  currency: Currency;
  count: number;
  amount: number;
}

/** Per UTC day, status and currency: how many payments were created and for how much. */
export function dailyPaymentTotals(q: Queryable, groupId: string, since: Date): Promise<DailyTotalRow[]> {
  return q.query<DailyTotalRow>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status, currency,
            count(*)::int AS count, sum(amount)::float8 AS amount
     FROM payments WHERE group_id = $1 AND created_at >= $2
     GROUP BY 1, 2, 3 ORDER BY 1`,
    [groupId, since],
  );
}

/** A processor's share of the payments created since a time, across every group. */
export interface ProcessorActivityRow {
  processor: string;
  /** Payments it opened a checkout for. */
  created: number;
  /** Creates that passed it over for the route's next processor. */
  passed_over: number;
}

/** Read by the recently updated index: a payment created since `since` was updated since then too. */
export function processorActivity(q: Queryable, since: Date): Promise<ProcessorActivityRow[]> {
  return q.query<ProcessorActivityRow>(
    `WITH recent AS (
       SELECT processor, processor_failovers FROM payments WHERE updated_at >= $1 AND created_at >= $1
     ), counted AS (
       SELECT processor, 1 AS created, 0 AS passed_over FROM recent
       UNION ALL
       SELECT passed.value->>'processor', 0, 1
       FROM recent, jsonb_array_elements(COALESCE(recent.processor_failovers, '[]'::jsonb)) AS passed
     )
     SELECT processor, sum(created)::int AS created, sum(passed_over)::int AS passed_over
     FROM counted GROUP BY processor`,
    [since],
  );
}
