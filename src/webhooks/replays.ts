// What a merchant or an operator sends again: one event, or every event of a window whose
// deliveries all failed. Each keeps its webhook-id, so receivers de-duplicate.
import { randomUUID } from "node:crypto";
import { type Audit, withAudit } from "../platform/audit/store.ts";
import type { Database } from "../platform/db/database.ts";
import { notFound } from "../platform/errors/domain-error.ts";
import type { WebhookOutbox } from "./outbox.ts";
import {
  insertEndpointRecoveryDeliveries,
  insertRecoveryDeliveries,
  insertRedelivery,
} from "./sql/outbox.ts";

export class Replays {
  constructor(
    private readonly db: Database,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** Queues a fresh delivery of one event to the URL it was meant for. */
  async resend(where: { groupId: string; transactionId: string; eventId: string }, audit: Audit<unknown>) {
    const deliveryId = randomUUID();
    await withAudit(this.db, audit, async (q) => {
      if (!(await insertRedelivery(q, where, deliveryId))) throw notFound("Event");
    });
    this.outbox.wake();
    return { deliveryId, state: "pending" as const };
  }

  /**
   * Sends again every event created in the window whose deliveries all failed (one group's, or
   * every group's for the operator). Each keeps its webhook-id, so receivers de-duplicate.
   */
  async recover(
    window: { groupId: string | null; since: Date; until: Date },
    audit: Audit<number>,
  ): Promise<{ queued: number }> {
    const queued = await withAudit(this.db, audit, (q) => insertRecoveryDeliveries(q, window));
    if (queued > 0) this.outbox.wake();
    return { queued };
  }

  /**
   * Every payment event of the window the endpoint takes and has not received, to it alone (an
   * endpoint enabled again after it was disabled). Another group's endpoint is not found.
   */
  async recoverToEndpoint(
    window: { groupId: string; endpointId: string; since: Date; until: Date },
    audit: Audit<number>,
  ): Promise<{ queued: number }> {
    const queued = await withAudit(this.db, audit, async (q) => {
      const count = await insertEndpointRecoveryDeliveries(q, window);
      if (count === undefined) throw notFound("Webhook endpoint");
      return count;
    });
    if (queued > 0) this.outbox.wake();
    return { queued };
  }
}
