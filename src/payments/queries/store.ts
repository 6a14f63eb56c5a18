// Read-only statements: listings, history and totals.
import type { Queryable } from "../../db/database.ts";
import type { Currency } from "../core/money.ts";
import type { PaymentStatus } from "../core/status.ts";
import { type PaymentResourceRow, RESOURCE_COLUMNS } from "../core/store.ts";

export interface PaymentFilter {
  status?: PaymentStatus | undefined;
  /** created_at at or after */
  from?: Date | undefined;
  /** created_at before */
  to?: Date | undefined;
  transactionId?: string | undefined;
  customerEmail?: string | undefined;
  /** Keyset cursor: rows after this payment in the listing's order (newest first). */
  afterId?: string | undefined;
}

/**
 * A group's payments, newest first, by keyset so a page costs the same at any depth. The API's
 * list, the dashboard's and its CSV show no more than the resource's columns, so no more are read.
 */
export function listPayments(
  q: Queryable,
  groupId: string,
  filter: PaymentFilter,
  limit: number,
): Promise<PaymentResourceRow[]> {
  return q.query<PaymentResourceRow>(
    `SELECT ${RESOURCE_COLUMNS} FROM payments
     WHERE group_id = $1
       AND ($2::text IS NULL OR status = $2)
       AND ($3::timestamptz IS NULL OR created_at >= $3)
       AND ($4::timestamptz IS NULL OR created_at < $4)
       AND ($5::uuid IS NULL OR id = $5)
       AND ($6::text IS NULL OR lower(customer_email) = lower($6))
       AND ($7::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM payments WHERE id = $7))
     ORDER BY created_at DESC, id DESC
     LIMIT $8`,
    [
      groupId,
      filter.status ?? null,
      filter.from ?? null,
      filter.to ?? null,
      filter.transactionId ?? null,
      filter.customerEmail ?? null,
      filter.afterId ?? null,
      limit,
    ],
  );
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
