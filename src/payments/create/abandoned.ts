import type { Database } from "../../platform/db/database.ts";
import { money } from "../../platform/format/money.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { CheckoutRequest, UnknownOutcome } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import type { RecordsElsewhere } from "../core/records-elsewhere.ts";
import {
  type AbandonedRow,
  checkoutInUse,
  claimDueAbandoned,
  closeAbandoned,
  openOrphanItem,
  paymentErased,
  rememberAbandoned,
} from "./abandoned-store.ts";

const BATCH = 50;

/**
 * Create attempts given up after an unknown outcome (docs/api.md, "Processor routing and failover"). The processor may have opened a
 * checkout whose answer was lost: asked again with the same idempotency key, it names that
 * checkout (or opens one now), which is then closed, so no orphan stays open for a customer. If
 * money landed on it first, the operator is given an item to refund it in full.
 */
export class AbandonedCheckouts {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    /** How long a claimed attempt is left alone: also the wait before asking a silent processor again. */
    private readonly leaseMs: number,
    private readonly log: Logger,
    private readonly elsewhere?: RecordsElsewhere | undefined,
  ) {}

  remember(
    groupId: string,
    processor: string,
    request: CheckoutRequest,
    outcome: UnknownOutcome,
  ): Promise<void> {
    return rememberAbandoned(this.db, {
      processor,
      idempotencyKey: request.idempotencyKey,
      transactionId: request.transactionId,
      groupId,
      request,
      outcome,
    });
  }

  /** One sweep; how many attempts it ended. */
  async closeDue(): Promise<number> {
    let ended = 0;
    for (const row of await claimDueAbandoned(this.db, BATCH, this.leaseMs)) {
      if (!(await this.closeOne(row))) continue;
      ended++;
      await this.forgetIfErased(row);
    }
    return ended;
  }

  /**
   * Closing asked the processor again with the attempt's own request, address and all: when its
   * payment was erased meanwhile, the records reachable here forget the address again.
   */
  private async forgetIfErased(row: AbandonedRow): Promise<void> {
    const email = (row.request as { customerEmail?: unknown }).customerEmail;
    if (!this.elsewhere || typeof email !== "string" || !(await paymentErased(this.db, row.transaction_id)))
      return;
    await this.elsewhere
      .forgetCustomers([email.toLowerCase()])
      .catch((error: Error) =>
        this.log.warn({ reason: error.message }, "the sandbox could not forget a customer"),
      );
  }

  private async closeOne(row: AbandonedRow): Promise<boolean> {
    // A retry of the same create took this processor's checkout over: it is the payment's now.
    if (await checkoutInUse(this.db, row.transaction_id, row.processor)) {
      await closeAbandoned(this.db, row.id, { resolution: "in_use" });
      return true;
    }
    const adapter = this.processors.of(row.processor);
    const stored = row.request as Omit<CheckoutRequest, "expiresAt"> & { expiresAt: string };
    const request: CheckoutRequest = { ...stored, expiresAt: new Date(stored.expiresAt) };
    const deadline = { deadlineMs: LOOKUP_DEADLINE_MS };
    const refusedOrLater = async (answer: { kind: "refused" | "unknown"; error: Error }) => {
      if (answer.kind === "refused") {
        await closeAbandoned(this.db, row.id, { resolution: "refused" });
        return true;
      }
      this.log.warn(
        { processor: row.processor, transactionId: row.transaction_id, reason: answer.error.message },
        "could not close an abandoned checkout: the processor did not answer; asking again later",
      );
      return false;
    };
    const asked = await callProcessor((signal) => adapter.createCheckout(request, signal), deadline);
    if (asked.kind !== "ok") return refusedOrLater(asked);
    const opened = asked.value;
    // Checked again: a retry may have taken it over while we asked.
    if (await checkoutInUse(this.db, row.transaction_id, row.processor)) {
      await closeAbandoned(this.db, row.id, { resolution: "in_use", checkoutId: opened.id });
      return true;
    }
    const expired = await callProcessor((signal) => adapter.expireCheckout(opened.id, signal), deadline);
    if (expired.kind !== "ok") return refusedOrLater(expired);
    const closed = expired.value;
    if (!closed.paid) {
      await closeAbandoned(this.db, row.id, { resolution: "closed", checkoutId: opened.id });
      return true;
    }
    await this.db.transaction(async (tx) => {
      await closeAbandoned(tx, row.id, {
        resolution: "paid",
        checkoutId: opened.id,
        paymentRef: closed.paymentRef,
      });
      await openOrphanItem(
        tx,
        row.id,
        `${row.processor} took ${money(request.amount, request.currency)} on checkout ${opened.id} ` +
          `(payment ${closed.paymentRef ?? "unknown"}), which a create gave up: refund it in full`,
      );
    });
    this.log.warn(
      { processor: row.processor, checkoutId: opened.id, transactionId: row.transaction_id },
      "money was taken on an abandoned checkout: listed for the operator to refund",
    );
    return true;
  }
}
