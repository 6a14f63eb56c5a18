import type { Queryable } from "../platform/db/database.ts";
import { type EventRow, eventCreatedAt, listEventsAfterEvent, listEventsSince } from "./sql/read-models.ts";

const PAGE = 200;
/**
 * An event's createdAt is its transaction's start, so one committed late can appear behind
 * events already sent. Each look goes this far back and skips what it has sent.
 */
export const LATE_COMMIT_WINDOW_MS = 5000;

/** The body an event's stream entry carries: the webhook body, its timestamp the event's time. */
export function eventBody(event: EventRow): Record<string, unknown> {
  return { ...event.payload, timestamp: event.payload.timestamp ?? event.created_at.toISOString() };
}

/**
 * Follows one group's events in order, each once: from now, or from just after an event the
 * caller already has (Last-Event-ID).
 */
export class EventFollower {
  /** Sent ids still inside the late-commit window, with their createdAt in ms. */
  private readonly sent = new Map<string, number>();
  private resumeAfter: string | undefined;
  /** The newest createdAt sent, in ms: each look re-reads the window behind it. */
  private newestMs: number;

  private constructor(
    private readonly db: Queryable,
    private readonly groupId: string,
    /** A fresh stream starts at its connection: what came before is the catch-up feed's. */
    private readonly startMs: number,
  ) {
    this.newestMs = startMs;
  }

  /** Undefined when `lastEventId` is not an event of the group. */
  static async open(
    db: Queryable,
    groupId: string,
    lastEventId: string | undefined,
  ): Promise<EventFollower | undefined> {
    if (lastEventId === undefined) return new EventFollower(db, groupId, Date.now());
    const createdAt = await eventCreatedAt(db, groupId, lastEventId);
    if (!createdAt) return undefined;
    const follower = new EventFollower(db, groupId, Number.NEGATIVE_INFINITY);
    follower.newestMs = createdAt.getTime();
    follower.resumeAfter = lastEventId;
    // What the caller had up to its last event must not come again when the window is re-read.
    const windowStart = new Date(createdAt.getTime() - LATE_COMMIT_WINDOW_MS);
    await follower.scan(listEventsSince(db, groupId, windowStart, PAGE), (event) => {
      follower.sent.set(event.id, event.created_at.getTime());
      return event.id !== lastEventId;
    });
    follower.sent.set(lastEventId, createdAt.getTime());
    return follower;
  }

  /** The events not yet returned, oldest first. */
  async next(): Promise<EventRow[]> {
    const fresh: EventRow[] = [];
    const first = this.resumeAfter
      ? listEventsAfterEvent(this.db, this.groupId, this.resumeAfter, PAGE)
      : listEventsSince(this.db, this.groupId, new Date(this.newestMs - LATE_COMMIT_WINDOW_MS), PAGE);
    this.resumeAfter = undefined;
    await this.scan(first, (event) => {
      const at = event.created_at.getTime();
      if (!this.sent.has(event.id) && at >= this.startMs) {
        this.sent.set(event.id, at);
        fresh.push(event);
        this.newestMs = Math.max(this.newestMs, at);
      }
      return true;
    });
    for (const [id, at] of this.sent) if (at < this.newestMs - LATE_COMMIT_WINDOW_MS) this.sent.delete(id);
    return fresh;
  }

  /** Walks pages from `first` on, while `visit` says go on. */
  private async scan(first: Promise<EventRow[]>, visit: (event: EventRow) => boolean): Promise<void> {
    let page = await first;
    for (;;) {
      for (const event of page) if (!visit(event)) return;
      const last = page.at(-1);
      if (page.length < PAGE || !last) return;
      page = await listEventsAfterEvent(this.db, this.groupId, last.id, PAGE);
    }
  }
}
