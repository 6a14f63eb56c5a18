// Reconciliation items (the operator's queue) and runs (comparisons with the processor).
import type { Queryable } from "../../platform/db/database.ts";
import type { Currency } from "../../platform/format/money.ts";
import type { ListedCheckout } from "../../processor/port.ts";
import type { PaymentStatus } from "../core/status.ts";
import type { PaymentRow, ReconciliationItemKind } from "../core/store.ts";

export interface ItemRow {
  id: string;
  kind: ReconciliationItemKind;
  payment_id: string | null;
  group_id: string | null;
  amount: number | null;
  currency: Currency | null;
  status: PaymentStatus | null;
  refunded_amount: number | null;
  refund_reserved: number | null;
  paid_at_processor: boolean | null;
  processor_payment_id: string | null;
  processor: string | null;
  detail: string;
  processor_event_id: string | null;
  created_at: Date;
}

/** The open items, oldest first. */
export function listOpenItems(q: Queryable, limit: number): Promise<ItemRow[]> {
  return q.query<ItemRow>(
    `SELECT i.id::text AS id, i.kind, i.payment_id, COALESCE(p.group_id, a.group_id) AS group_id,
       COALESCE(p.amount, (a.request->>'amount')::integer, u.amount - u.refunded_amount) AS amount,
       COALESCE(p.currency, a.request->>'currency', u.currency) AS currency, p.status,
       COALESCE(p.refunded_amount, u.refunded_amount) AS refunded_amount, p.refund_reserved, p.paid_at_processor,
       COALESCE(p.processor_payment_id, a.payment_ref, u.payment_ref) AS processor_payment_id,
       COALESCE(p.processor, a.processor, u.processor) AS processor,
       i.detail, i.processor_event_id, i.created_at
     FROM reconciliation_items i LEFT JOIN payments p ON p.id = i.payment_id
       LEFT JOIN abandoned_checkouts a ON a.id = i.abandoned_checkout_id
       LEFT JOIN unbooked_checkouts u ON u.id = i.unbooked_checkout_id
     WHERE i.resolved_at IS NULL ORDER BY i.id LIMIT $1`,
    [limit],
  );
}

/** Closes an item with the operator's note; false when it was already closed or never existed. */
export async function resolveItem(q: Queryable, itemId: string, note: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE reconciliation_items SET resolved_at = now(), resolution_note = $2
     WHERE id = $1::bigint AND resolved_at IS NULL RETURNING id`,
    [itemId, note],
  );
  return rows.length === 1;
}

export interface RunRow {
  id: string;
  status: "running" | "finished";
  since: Date;
  until: Date;
  checked: number;
  repaired: number;
  drifts: number;
  requested_by: string;
  started_at: Date;
  finished_at: Date | null;
}

/** A new run; false when its scheduled slot was taken by another instance. */
export async function insertRun(
  q: Queryable,
  run: { id: string; since: Date; until: Date; requestedBy: string; scheduleSlot: number | null },
): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO reconciliation_runs (id, status, since, until, requested_by, schedule_slot)
     VALUES ($1, 'running', $2, $3, $4, $5) ON CONFLICT (schedule_slot) DO NOTHING RETURNING id`,
    [run.id, run.since, run.until, run.requestedBy, run.scheduleSlot],
  );
  return rows.length === 1;
}

export async function recordRunProgress(
  q: Queryable,
  runId: string,
  figures: { checked: number; repaired: number; drifts: number },
  finished: boolean,
): Promise<void> {
  await q.query(
    `UPDATE reconciliation_runs SET checked = $2, repaired = $3, drifts = $4,
       status = CASE WHEN $5::boolean THEN 'finished' ELSE status END,
       finished_at = CASE WHEN $5::boolean THEN now() ELSE finished_at END
     WHERE id = $1`,
    [runId, figures.checked, figures.repaired, figures.drifts, finished],
  );
}

export async function findRun(q: Queryable, runId: string): Promise<RunRow | undefined> {
  const [row] = await q.query<RunRow>("SELECT * FROM reconciliation_runs WHERE id = $1", [runId]);
  return row;
}

/** The database's clock, to the microsecond: updated_at is written by it, not by this host's clock. */
export async function databaseNow(q: Queryable): Promise<string> {
  const [row] = await q.query<{ now: string }>("SELECT now()::text AS now");
  return row?.now as string;
}

/** Where a run's walk has got to: the last payment's updated_at, to the microsecond, and id. */
export interface RunPosition {
  updatedAt: string;
  id: string;
}

/**
 * Payments a run compares, in the order of the index on updated_at, after `after`: those that
 * existed before `until` and changed (or were created) since `since`, but not since the run began.
 * A payment changed during the run (by an event, a sweep, or this run's own repair) is as fresh as
 * a check would make it, and the next run's window holds it; walking by id instead sorted the
 * whole window again for every batch. A payment's updated_at is never before its created_at.
 */
export function paymentsChangedBetween(
  q: Queryable,
  window: { since: Date; until: Date; runStartedAt: string },
  after: RunPosition | null,
  limit: number,
): Promise<(PaymentRow & { position: string })[]> {
  return q.query<PaymentRow & { position: string }>(
    `SELECT *, updated_at::text AS position FROM payments
     WHERE updated_at >= $1 AND updated_at < $3::timestamptz AND created_at < $2 AND processor_checkout_id IS NOT NULL
       AND ($4::timestamptz IS NULL OR (updated_at, id) > ($4::timestamptz, $5::uuid))
     ORDER BY updated_at, id LIMIT $6`,
    [window.since, window.until, window.runStartedAt, after?.updatedAt ?? null, after?.id ?? null, limit],
  );
}

/** The payment went through `disputed` at some point. */
export async function hasBeenDisputed(q: Queryable, paymentId: string): Promise<boolean> {
  const rows = await q.query(
    "SELECT 1 FROM payment_status_changes WHERE payment_id = $1 AND to_status = 'disputed' LIMIT 1",
    [paymentId],
  );
  return rows.length > 0;
}

/**
 * An open item for money taken on a checkout that belongs to no payment: one a create abandoned,
 * or one whose payment the books lost. Which, and its row there.
 */
export interface OrphanRow {
  source: "abandoned" | "unbooked";
  source_id: string;
  processor: string;
  transaction_id: string;
  payment_ref: string | null;
  /** What is left to give back. */
  amount: number;
  currency: Currency;
}

const ORPHAN_SOURCES = { abandoned: "abandoned_checkouts", unbooked: "unbooked_checkouts" } as const;

/**
 * Claims an open orphan item's refund for `leaseMs`, so two operators asking at once make one
 * request; "busy" while another holds the claim, undefined when there is no such open item.
 */
export async function claimOrphanRefund(
  q: Queryable,
  itemId: string,
  leaseMs: number,
): Promise<OrphanRow | "busy" | undefined> {
  const [row] = await q.query<OrphanRow & { claimed: boolean }>(
    `WITH open AS (
       SELECT i.abandoned_checkout_id, i.unbooked_checkout_id FROM reconciliation_items i
       WHERE i.id = $1::bigint AND i.kind IN ('orphan_checkout_paid', 'unbooked_payment') AND i.resolved_at IS NULL),
     claimed_abandoned AS (
       UPDATE abandoned_checkouts a SET refund_claimed_until = now() + $2 * interval '1 millisecond'
       FROM open WHERE a.id = open.abandoned_checkout_id AND (a.refund_claimed_until IS NULL OR a.refund_claimed_until < now())
       RETURNING a.id),
     claimed_unbooked AS (
       UPDATE unbooked_checkouts u SET refund_claimed_until = now() + $2 * interval '1 millisecond'
       FROM open WHERE u.id = open.unbooked_checkout_id AND (u.refund_claimed_until IS NULL OR u.refund_claimed_until < now())
       RETURNING u.id)
     SELECT 'abandoned' AS source, a.id::text AS source_id, a.processor, a.transaction_id, a.payment_ref,
       (a.request->>'amount')::integer AS amount, a.request->>'currency' AS currency,
       EXISTS (SELECT 1 FROM claimed_abandoned) AS claimed
     FROM abandoned_checkouts a JOIN open ON open.abandoned_checkout_id = a.id
     UNION ALL
     SELECT 'unbooked', u.id::text, u.processor, u.transaction_id, u.payment_ref,
       u.amount - u.refunded_amount, u.currency, EXISTS (SELECT 1 FROM claimed_unbooked)
     FROM unbooked_checkouts u JOIN open ON open.unbooked_checkout_id = u.id`,
    [itemId, leaseMs],
  );
  if (!row) return undefined;
  return row.claimed ? row : "busy";
}

/** Records the operator's refund of an orphan and closes its item; false when it was closed already. */
export async function recordOrphanRefund(
  q: Queryable,
  itemId: string,
  orphan: Pick<OrphanRow, "source" | "source_id">,
  refundRef: string,
  note: string,
): Promise<boolean> {
  await q.query(`UPDATE ${ORPHAN_SOURCES[orphan.source]} SET refund_ref = $2 WHERE id = $1::bigint`, [
    orphan.source_id,
    refundRef,
  ]);
  return resolveItem(q, itemId, note);
}

/** Lets the refund be asked for again at once (the last ask got no refund). */
export async function releaseOrphanClaim(
  q: Queryable,
  orphan: Pick<OrphanRow, "source" | "source_id">,
): Promise<void> {
  await q.query(
    `UPDATE ${ORPHAN_SOURCES[orphan.source]} SET refund_claimed_until = NULL WHERE id = $1::bigint`,
    [orphan.source_id],
  );
}

/**
 * Of these paid checkouts at one processor, those naming no payment of ours and no create attempt
 * we gave up on: their ids.
 */
export async function unbookedAmong(
  q: Queryable,
  processor: string,
  checkouts: readonly ListedCheckout[],
): Promise<Set<string>> {
  const rows = await q.query<{ id: string }>(
    `SELECT c.id FROM unnest($2::text[], $3::uuid[]) AS c(id, transaction_id)
     WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = c.transaction_id)
       AND NOT EXISTS (SELECT 1 FROM abandoned_checkouts a WHERE a.processor = $1 AND a.checkout_id = c.id)`,
    [
      processor,
      checkouts.map((checkout) => checkout.id),
      checkouts.map((checkout) => checkout.transactionIdHint),
    ],
  );
  return new Set(rows.map((row) => row.id));
}

/** Records a paid checkout missing from the books and opens its item; false when it was known. */
export async function recordUnbookedCheckout(
  q: Queryable,
  found: { processor: string; checkout: ListedCheckout; refundedAmount: number; detail: string },
): Promise<boolean> {
  const { checkout } = found;
  const rows = await q.query(
    `WITH found AS (
       INSERT INTO unbooked_checkouts (processor, checkout_id, transaction_id, payment_ref, amount, currency,
         refunded_amount, checkout_created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (processor, checkout_id) DO NOTHING
       RETURNING id
     )
     INSERT INTO reconciliation_items (payment_id, kind, detail, unbooked_checkout_id)
     SELECT NULL, 'unbooked_payment', $9, id FROM found
     RETURNING id`,
    [
      found.processor,
      checkout.id,
      checkout.transactionIdHint,
      checkout.paymentRef,
      checkout.amount,
      checkout.currency,
      found.refundedAmount,
      checkout.createdAt,
      found.detail,
    ],
  );
  return rows.length > 0;
}
