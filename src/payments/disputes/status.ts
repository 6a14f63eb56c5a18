import { type DisputeStatus, OPEN_DISPUTE_STATUSES, type ProcessorDispute } from "../../processor/port.ts";

/**
 * Where a dispute may go from each status. A closed dispute stays closed: a processor that calls
 * a conceded dispute lost later leaves it `accepted`.
 */
const DISPUTE_TRANSITIONS: Record<DisputeStatus, readonly DisputeStatus[]> = {
  needs_response: ["under_review", "won", "lost", "accepted"],
  under_review: ["won", "lost"],
  won: [],
  lost: [],
  accepted: [],
};

export const canMoveDispute = (from: DisputeStatus, to: DisputeStatus): boolean =>
  DISPUTE_TRANSITIONS[from].includes(to);

/** The statuses a dispute may reach `to` from: the condition of the update that moves it. */
export const disputeStatusesBefore = (to: DisputeStatus): DisputeStatus[] =>
  (Object.keys(DISPUTE_TRANSITIONS) as DisputeStatus[]).filter((from) => canMoveDispute(from, to));

export const isOpenDispute = (status: DisputeStatus): boolean => OPEN_DISPUTE_STATUSES.has(status);

export type PendingDisputeAction = "submit" | "accept";

/**
 * What the processor's word makes of our dispute: the status it moves to, and whether it settles
 * a call of ours whose answer we never got. A concession the processor reports as lost (not every
 * processor has "accepted") is ours: `accepted`.
 */
export function settledStatus(
  ours: { status: DisputeStatus; pending: PendingDisputeAction | null },
  theirs: ProcessorDispute["status"],
): { status: DisputeStatus; settlesPending: boolean } {
  const reported = ours.pending === "accept" && theirs === "lost" ? "accepted" : theirs;
  const status = canMoveDispute(ours.status, reported) ? reported : ours.status;
  // Once the dispute has left needs_response, no submission or concession of ours is still open.
  return { status, settlesPending: ours.pending !== null && status !== "needs_response" };
}

/** The open statuses as an SQL list. */
export const OPEN_STATUSES_SQL = `(${[...OPEN_DISPUTE_STATUSES].map((status) => `'${status}'`).join(", ")})`;
