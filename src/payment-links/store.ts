// The statements of payment links: the link itself, and what its paid payments add up to.
import type { Queryable } from "../platform/db/database.ts";
import { moneySum } from "../platform/db/money-sum.ts";
import type { Currency } from "../platform/format/money.ts";

export interface PaymentLinkRow {
  id: string;
  group_id: string;
  slug: string;
  site_url: string;
  name: string;
  currency: Currency;
  amount: number | null;
  min_amount: number | null;
  max_amount: number | null;
  description: string | null;
  success_url: string | null;
  metadata: Record<string, unknown> | null;
  active: boolean;
  created_at: Date;
  /** The link's payments the customer paid (refunds not subtracted). */
  payment_count: number;
  amount_paid: number;
}

export type NewPaymentLink = Omit<PaymentLinkRow, "active" | "created_at" | "payment_count" | "amount_paid">;

// Counted from the payments' own flag: money taken, whatever happened after.
const WITH_TOTALS = `SELECT l.*,
    (SELECT count(*)::int FROM payments p WHERE p.payment_link_id = l.id AND p.paid_at_processor) AS payment_count,
    (SELECT COALESCE(sum(p.amount), 0)::bigint FROM payments p
      WHERE p.payment_link_id = l.id AND p.paid_at_processor) AS amount_paid
  FROM payment_links l`;

const withNumbers = (row: PaymentLinkRow): PaymentLinkRow => ({
  ...row,
  amount_paid: moneySum(row.amount_paid),
});

export async function insertPaymentLink(q: Queryable, link: NewPaymentLink): Promise<void> {
  await q.query(
    `INSERT INTO payment_links (id, group_id, slug, name, currency, amount, min_amount, max_amount, description,
       success_url, metadata, site_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      link.id,
      link.group_id,
      link.slug,
      link.name,
      link.currency,
      link.amount,
      link.min_amount,
      link.max_amount,
      link.description,
      link.success_url,
      link.metadata && JSON.stringify(link.metadata),
      link.site_url,
    ],
  );
}

export async function findPaymentLink(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<PaymentLinkRow | undefined> {
  const [row] = await q.query<PaymentLinkRow>(`${WITH_TOTALS} WHERE l.id = $1 AND l.group_id = $2`, [
    id,
    groupId,
  ]);
  return row && withNumbers(row);
}

export async function findPaymentLinkBySlug(q: Queryable, slug: string): Promise<PaymentLinkRow | undefined> {
  const [row] = await q.query<PaymentLinkRow>(`${WITH_TOTALS} WHERE l.slug = $1`, [slug]);
  return row && withNumbers(row);
}

/** The group's links, newest first, by keyset: `afterId` names a link of this group only. */
export async function listPaymentLinks(
  q: Queryable,
  groupId: string,
  afterId: string | undefined,
  limit: number,
): Promise<PaymentLinkRow[]> {
  const rows = await q.query<PaymentLinkRow>(
    `${WITH_TOTALS}
     WHERE l.group_id = $1
       AND ($2::uuid IS NULL OR (l.created_at, l.id) <
         (SELECT created_at, id FROM payment_links WHERE id = $2::uuid AND group_id = $1))
     ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
    [groupId, afterId ?? null, limit],
  );
  return rows.map(withNumbers);
}

export interface PaymentLinkChange {
  active?: boolean | undefined;
  name?: string | undefined;
  /** Null clears it. */
  description?: string | null | undefined;
}

/** Changes what is given; false when the group has no such link. */
export async function updatePaymentLink(
  q: Queryable,
  groupId: string,
  id: string,
  change: PaymentLinkChange,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payment_links SET
       active = COALESCE($3, active),
       name = COALESCE($4, name),
       description = CASE WHEN $5::boolean THEN $6 ELSE description END
     WHERE id = $1 AND group_id = $2
     RETURNING id`,
    [
      id,
      groupId,
      change.active ?? null,
      change.name ?? null,
      change.description !== undefined,
      change.description ?? null,
    ],
  );
  return rows.length > 0;
}
