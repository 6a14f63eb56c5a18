// The event log as merchants and operators read it: a payment's events with their deliveries and
// attempts, the catch-up feed, the failed deliveries, and the queue's depth and age.
import type { Database } from "../platform/db/database.ts";
import { countPendingDeliveries, oldestPendingDelivery } from "./sql/operations.ts";
import {
  type EventRow,
  listAttemptsOfDeliveries,
  listDeliveriesOfEvents,
  listEventsOfTransaction,
  listEventsSince,
  listFailedDeliveries,
} from "./sql/read-models.ts";
import { eventBody } from "./stream.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const QUEUE_DEPTH_CACHE_MS = 5000;

export class EventLog {
  private depth: { at: number; value: Promise<number> } | undefined;

  constructor(private readonly db: Database) {}

  /** A transaction's events with their deliveries and every attempt, oldest first. */
  async eventsOf(groupId: string, transactionId: string) {
    return this.describe(await listEventsOfTransaction(this.db, groupId, transactionId));
  }

  /** The catch-up feed: a group's events created at or after `since`, oldest first. */
  async eventsSince(groupId: string, since: Date, limit: number) {
    return this.describe(await listEventsSince(this.db.reads, groupId, since, limit));
  }

  /** Deliveries dropped after their last attempt, across groups, newest first. */
  async failedDeliveries(limit: number) {
    const rows = await listFailedDeliveries(this.db, limit);
    return rows.map((row) => ({
      deliveryId: row.id,
      eventId: row.event_id,
      event: row.event,
      transactionId: row.payment_id,
      groupId: row.group_id,
      url: row.url,
      attempts: row.attempts,
      lastStatusCode: row.last_status_code,
      lastError: row.last_error,
      failedAt: row.completed_at.toISOString(),
    }));
  }

  /** Deliveries waiting, counted at most every few seconds however often metrics are scraped. */
  queueDepth(): Promise<number> {
    const now = Date.now();
    if (!this.depth || now - this.depth.at > QUEUE_DEPTH_CACHE_MS) {
      const counting = countPendingDeliveries(this.db);
      this.depth = { at: now, value: counting };
      counting.catch(() => {
        this.depth = undefined;
      });
    }
    return this.depth.value;
  }

  /** The queue's age: when the longest-waiting delivery was queued. */
  oldestUndelivered(): Promise<Date | null> {
    return oldestPendingDelivery(this.db);
  }

  private async describe(events: EventRow[]) {
    if (events.length === 0) return [];
    const deliveries = await listDeliveriesOfEvents(
      this.db,
      events.map((event) => event.id),
    );
    const attempts = await listAttemptsOfDeliveries(
      this.db,
      deliveries.map((delivery) => delivery.id),
    );
    return events.map((event) => {
      const own = deliveries.filter((delivery) => delivery.event_id === event.id);
      return {
        id: event.id,
        /** The `webhook-id` header of every delivery of this event. */
        eventId: event.id,
        /** Documented as `type`; `event` is the same name, kept for earlier clients. */
        type: event.event,
        event: event.event,
        status: event.status,
        transactionId: event.payment_id,
        createdAt: event.created_at.toISOString(),
        // The body as sent: its timestamp is the first send's, or the event's own when none was sent.
        payload: { ...eventBody(event), ...(own[0]?.sent_timestamp && { timestamp: own[0].sent_timestamp }) },
        deliveries: own.map((delivery) => ({
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
              answer: attempt.answer,
            })),
        })),
      };
    });
  }
}
