// A payment's disputes: recorded from what the processor says, moved only through the transition
// table (./status.ts), each move a conditional update.
import type { Queryable } from "../../platform/db/database.ts";
import type { DisputeReason, DisputeStatus, ProcessorDispute } from "../../processor/port.ts";
import { disputeStatusesBefore, OPEN_STATUSES_SQL, type PendingDisputeAction } from "./status.ts";

export interface DisputeRow {
  id: string;
  payment_id: string;
  group_id: string;
  processor: string;
  processor_dispute_id: string;
  amount: number;
  currency: string;
  reason: DisputeReason;
  status: DisputeStatus;
  evidence_due_by: Date | null;
  evidence_submitted_at: Date | null;
  pending_action: PendingDisputeAction | null;
  pending_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, payment_id, group_id, processor, processor_dispute_id, amount, currency, reason, status,
  evidence_due_by, evidence_submitted_at, pending_action, pending_since, created_at, updated_at`;

/** A dispute the processor reports for the first time; undefined when it is already recorded. */
export async function insertDispute(
  q: Queryable,
  dispute: { id: string; paymentId: string; groupId: string; processor: string; remote: ProcessorDispute },
): Promise<DisputeRow | undefined> {
  const { remote } = dispute;
  const [row] = await q.query<DisputeRow>(
    `INSERT INTO disputes (id, payment_id, group_id, processor, processor_dispute_id, amount, currency, reason,
       status, evidence_due_by, evidence_submitted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $9 = 'under_review' THEN now() END)
     ON CONFLICT (processor, processor_dispute_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      dispute.id,
      dispute.paymentId,
      dispute.groupId,
      dispute.processor,
      remote.id,
      remote.amount,
      remote.currency,
      remote.reason,
      remote.status,
      remote.evidenceDueBy,
    ],
  );
  return row;
}

export async function lockDisputeOfProcessor(
  q: Queryable,
  processor: string,
  processorDisputeId: string,
): Promise<DisputeRow | undefined> {
  const [row] = await q.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE processor = $1 AND processor_dispute_id = $2 FOR UPDATE`,
    [processor, processorDisputeId],
  );
  return row;
}

/**
 * The dispute as the processor now tells it: its amount and deadline, and its status if the
 * transition table allows the move from the status read (`from`). A pending call it settles is
 * cleared. Undefined when someone moved it first.
 */
export async function updateDisputeFromProcessor(
  q: Queryable,
  id: string,
  change: { from: DisputeStatus; to: DisputeStatus; remote: ProcessorDispute; settlesPending: boolean },
): Promise<DisputeRow | undefined> {
  const allowedFrom = change.from === change.to ? [change.from] : disputeStatusesBefore(change.to);
  const [row] = await q.query<DisputeRow>(
    `UPDATE disputes SET
       status = $2,
       amount = $4,
       evidence_due_by = COALESCE($5, evidence_due_by),
       evidence_submitted_at = CASE WHEN $2 = 'under_review' THEN COALESCE(evidence_submitted_at, now())
         ELSE evidence_submitted_at END,
       pending_action = CASE WHEN $6 THEN NULL ELSE pending_action END,
       pending_since = CASE WHEN $6 THEN NULL ELSE pending_since END,
       updated_at = now()
     WHERE id = $1 AND status = $3 AND status = ANY ($7::text[])
     RETURNING ${COLUMNS}`,
    [
      id,
      change.to,
      change.from,
      change.remote.amount,
      change.remote.evidenceDueBy,
      change.settlesPending,
      allowedFrom,
    ],
  );
  return row;
}

/**
 * Marks a submission or concession about to be asked of the processor: only on a dispute still
 * waiting for the merchant, before its deadline, with no other call's outcome outstanding.
 */
export async function markDisputePending(
  q: Queryable,
  id: string,
  action: PendingDisputeAction,
  now: Date,
): Promise<DisputeRow | undefined> {
  const [row] = await q.query<DisputeRow>(
    `UPDATE disputes SET pending_action = $2, pending_since = now(), updated_at = now()
     WHERE id = $1 AND status = 'needs_response' AND pending_action IS NULL
       AND (evidence_due_by IS NULL OR evidence_due_by > $3)
     RETURNING ${COLUMNS}`,
    [id, action, now],
  );
  return row;
}

/** The processor definitely refused the call marked pending: nothing happened there. */
export async function clearDisputePending(
  q: Queryable,
  id: string,
  action: PendingDisputeAction,
): Promise<void> {
  await q.query(
    `UPDATE disputes SET pending_action = NULL, pending_since = NULL, updated_at = now()
     WHERE id = $1 AND pending_action = $2`,
    [id, action],
  );
}

export async function findDispute(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<DisputeRow | undefined> {
  const [row] = await q.query<DisputeRow>(`SELECT ${COLUMNS} FROM disputes WHERE id = $1 AND group_id = $2`, [
    id,
    groupId,
  ]);
  return row;
}

export function listDisputesOfPayment(q: Queryable, paymentId: string): Promise<DisputeRow[]> {
  return q.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE payment_id = $1 ORDER BY created_at, id`,
    [paymentId],
  );
}

/**
 * The listing's order: open disputes first, soonest deadline first (none last); then the closed
 * ones, newest first. As one ascending key, so a page resumes after its last row.
 */
const ORDERED = `SELECT ${COLUMNS},
    CASE WHEN status IN ${OPEN_STATUSES_SQL} THEN 0 ELSE 1 END AS rank,
    CASE WHEN status IN ${OPEN_STATUSES_SQL}
      THEN COALESCE(EXTRACT(EPOCH FROM evidence_due_by), 1e12)
      ELSE -EXTRACT(EPOCH FROM created_at) END AS sort_key
  FROM disputes WHERE group_id = $1`;

export async function listDisputes(
  q: Queryable,
  groupId: string,
  filter: { status?: DisputeStatus | undefined; afterId?: string | undefined },
  limit: number,
): Promise<DisputeRow[]> {
  return q.query<DisputeRow>(
    `WITH ordered AS (${ORDERED})
     SELECT ${COLUMNS} FROM ordered
     WHERE ($2::text IS NULL OR status = $2)
       AND ($3::uuid IS NULL OR (rank, sort_key, id) > (SELECT rank, sort_key, id FROM ordered WHERE id = $3))
     ORDER BY rank, sort_key, id
     LIMIT $4`,
    [groupId, filter.status ?? null, filter.afterId ?? null, limit],
  );
}

/** Disputes whose last call's outcome is unknown since before `before`: to be read at the processor. */
export function listPendingDisputes(q: Queryable, before: Date, limit: number): Promise<DisputeRow[]> {
  return q.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE pending_action IS NOT NULL AND pending_since < $1
     ORDER BY pending_since LIMIT $2`,
    [before, limit],
  );
}

/** A dispute whose owners' e-mail this instance took to send. */
export type NoticeRow = Pick<
  DisputeRow,
  "id" | "group_id" | "payment_id" | "amount" | "currency" | "reason" | "evidence_due_by"
>;

/**
 * Takes the disputes whose e-mail of this kind is due, marking each sent before it goes: of
 * several workers only one takes a dispute, and a dispute is told of at most once. Opened: a
 * dispute still waiting, seen in the last week (one learnt long after, or before mail was set
 * up, is not news). Deadline: waiting with nothing submitted, its deadline within 72 hours.
 */
export function takeDueNotices(
  q: Queryable,
  kind: "opened" | "deadline",
  now: Date,
  limit: number,
): Promise<NoticeRow[]> {
  const due =
    kind === "opened"
      ? `status = 'needs_response' AND opened_notice_at IS NULL AND created_at > $1::timestamptz - interval '7 days'`
      : `status = 'needs_response' AND deadline_notice_at IS NULL AND evidence_submitted_at IS NULL
         AND evidence_due_by > $1 AND evidence_due_by <= $1::timestamptz + interval '72 hours'`;
  const column = kind === "opened" ? "opened_notice_at" : "deadline_notice_at";
  return q.query<NoticeRow>(
    `UPDATE disputes SET ${column} = now()
     WHERE id IN (SELECT id FROM disputes WHERE ${due} ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id, group_id, payment_id, amount, currency, reason, evidence_due_by`,
    [now, limit],
  );
}
