import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { Queryable } from "../platform/db/database.ts";
import { insertEventAndDeliveries } from "./sql/outbox.ts";

/** A finished webhook, as the module that caused it built it. */
export interface OutboxMessage {
  groupId: string;
  transactionId: string;
  event: string;
  status: string;
  /** The body, keys in the order they are sent; a `timestamp` key is set at the first attempt. */
  payload: Record<string, unknown>;
  /** Where to deliver it besides the group's endpoints; null: to those alone, or the feed only. */
  url: string | null;
}

/** Fairness key: deliveries to one receiver share a budget so it cannot starve the others. */
export function destinationOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

/**
 * The transactional outbox. `enqueue` runs inside the caller's transaction, so an event exists
 * exactly when the change that caused it was committed; `wake` nudges this instance's dispatcher
 * after that commit (other instances hear PostgreSQL's NOTIFY).
 */
export class WebhookOutbox {
  private readonly signal = new EventEmitter();

  /**
   * The event's id, and whether a delivery was queued (the caller should then wake the
   * dispatcher after commit).
   */
  async enqueue(tx: Queryable, message: OutboxMessage): Promise<{ eventId: string; queued: boolean }> {
    const event = { id: randomUUID(), ...message };
    const delivery = message.url
      ? { id: randomUUID(), url: message.url, destination: destinationOf(message.url) }
      : null;
    const queued = await insertEventAndDeliveries(tx, event, delivery);
    return { eventId: event.id, queued: queued > 0 };
  }

  wake(): void {
    this.signal.emit("wake");
  }

  onWake(listener: () => void): () => void {
    this.signal.on("wake", listener);
    return () => this.signal.off("wake", listener);
  }
}
