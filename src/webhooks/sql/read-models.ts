// What the API, the pages and the operators read of events, deliveries and attempts.
import type { Queryable } from "../../platform/db/database.ts";

export interface EventRow {
  id: string;
  payment_id: string;
  group_id: string;
  event: string;
  status: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  url: string;
  state: "pending" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: Date;
  sent_timestamp: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  answer: string | null;
}

export function listEventsOfTransaction(
  q: Queryable,
  groupId: string,
  transactionId: string,
): Promise<EventRow[]> {
  return q.query<EventRow>(
    "SELECT * FROM webhook_events WHERE group_id = $1 AND payment_id = $2 ORDER BY created_at, id",
    [groupId, transactionId],
  );
}

export function listEventsSince(
  q: Queryable,
  groupId: string,
  since: Date,
  limit: number,
): Promise<EventRow[]> {
  return q.query<EventRow>(
    // Payments' events only: an endpoint's test event is its delivery log's, not the feed's.
    "SELECT * FROM webhook_events WHERE group_id = $1 AND created_at >= $2 AND payment_id IS NOT NULL ORDER BY created_at, id LIMIT $3",
    [groupId, since, limit],
  );
}

/** A page of a group's events strictly after one of its events, oldest first. */
export function listEventsAfterEvent(
  q: Queryable,
  groupId: string,
  eventId: string,
  limit: number,
): Promise<EventRow[]> {
  // The position is read in SQL, at the column's full precision, as one value: the index on
  // (group_id, created_at, id) then starts at it, instead of walking the group's older events.
  return q.query<EventRow>(
    `SELECT * FROM webhook_events
     WHERE group_id = $1
       AND (created_at, id) > (SELECT created_at, id FROM webhook_events WHERE group_id = $1 AND id = $2)
       AND payment_id IS NOT NULL
     ORDER BY created_at, id LIMIT $3`,
    [groupId, eventId, limit],
  );
}

/** When one of a group's events was created; undefined when the group has no such event. */
export async function eventCreatedAt(
  q: Queryable,
  groupId: string,
  eventId: string,
): Promise<Date | undefined> {
  const rows = await q.query<{ created_at: Date }>(
    "SELECT created_at FROM webhook_events WHERE group_id = $1 AND id = $2",
    [groupId, eventId],
  );
  return rows[0]?.created_at;
}

export function listDeliveriesOfEvents(q: Queryable, eventIds: readonly string[]): Promise<DeliveryRow[]> {
  return q.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY created_at",
    [eventIds],
  );
}

export function listAttemptsOfDeliveries(
  q: Queryable,
  deliveryIds: readonly string[],
): Promise<AttemptRow[]> {
  return q.query<AttemptRow>(
    "SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempt",
    [deliveryIds],
  );
}

export interface FailedDeliveryRow {
  id: string;
  event_id: string;
  event: string;
  payment_id: string;
  group_id: string;
  url: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  completed_at: Date;
}

export function listFailedDeliveries(q: Queryable, limit: number): Promise<FailedDeliveryRow[]> {
  return q.query<FailedDeliveryRow>(
    `SELECT d.id, d.event_id, e.event, e.payment_id, e.group_id, d.url, d.attempts, d.last_status_code,
            d.last_error, d.completed_at
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id AND e.created_at = d.event_created_at
     WHERE d.state = 'failed' AND e.payment_id IS NOT NULL ORDER BY d.completed_at DESC LIMIT $1`,
    [limit],
  );
}
