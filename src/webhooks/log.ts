import type { Queryable } from "../db/database.ts";

export interface EventRow {
  id: string;
  payment_id: string;
  event: string;
  status: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  url: string;
  state: string;
  attempts: number;
  next_attempt_at: Date;
  sent_timestamp: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Events with their deliveries and every attempt, as the merchant sees them. */
export async function describeEvents(db: Queryable, events: EventRow[]) {
  if (events.length === 0) return [];
  const eventIds = events.map((event) => event.id);
  const deliveries = await db.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY created_at",
    [eventIds],
  );
  const attempts = await db.query<AttemptRow>(
    "SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY attempt",
    [deliveries.map((delivery) => delivery.id)],
  );
  return events.map((event) => ({
    id: event.id,
    event: event.event,
    status: event.status,
    transactionId: event.payment_id,
    createdAt: event.created_at.toISOString(),
    payload: event.payload,
    deliveries: deliveries
      .filter((delivery) => delivery.event_id === event.id)
      .map((delivery) => ({
        id: delivery.id,
        url: delivery.url,
        state: delivery.state,
        attemptCount: delivery.attempts,
        nextAttemptAt: delivery.state === "pending" ? delivery.next_attempt_at.toISOString() : null,
        sentTimestamp: delivery.sent_timestamp,
        createdAt: delivery.created_at.toISOString(),
        completedAt: iso(delivery.completed_at),
        attempts: attempts
          .filter((attempt) => attempt.delivery_id === delivery.id)
          .map((attempt) => ({
            attempt: attempt.attempt,
            attemptedAt: attempt.attempted_at.toISOString(),
            statusCode: attempt.status_code,
            error: attempt.error,
            durationMs: attempt.duration_ms,
          })),
      })),
  }));
}
