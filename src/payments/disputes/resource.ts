import type { DisputeRow } from "./store.ts";

/** A dispute as the API, the client and the dashboard show it (docs/api.md, "Disputes"). */
export function toDisputeResource(row: DisputeRow) {
  return {
    disputeId: row.id,
    transactionId: row.payment_id,
    processor: row.processor,
    processorDisputeId: row.processor_dispute_id,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    evidenceDueBy: row.evidence_due_by?.toISOString() ?? null,
    evidenceSubmittedAt: row.evidence_submitted_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export type DisputeResource = ReturnType<typeof toDisputeResource>;
