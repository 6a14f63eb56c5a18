import { randomUUID } from "node:crypto";
import { type Audit, withAudit } from "../../platform/audit/store.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { Checkout, ProcessorPayment } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import type { PaymentFact } from "../core/facts.ts";
import { CLOSED_UNPAID, NOT_YET_PAID, PAID_STATUSES, refundableAmount } from "../core/status.ts";
import { findPaymentById, openReconciliationItem, type PaymentRow } from "../core/store.ts";
import type { PaymentWriter } from "../core/writer.ts";
import type { Disputes } from "../disputes/service.ts";
import { isOpenDispute } from "../disputes/status.ts";
import type { Refunds } from "../refunds/service.ts";
import { listPendingRefunds } from "../refunds/store.ts";
import {
  databaseNow,
  findRun,
  hasBeenDisputed,
  insertRun,
  listOpenItems,
  paymentsChangedBetween,
  type RunPosition,
  recordRunProgress,
  resolveItem,
} from "./store.ts";
import { UnbookedCheckouts } from "./unbooked.ts";

const RUN_BATCH = 100;
/** The scheduled run looks this far back, so a day's missed run is still covered by the next. */
const SCHEDULED_WINDOW_MS = 48 * 60 * 60 * 1000;

export interface RunFigures {
  checked: number;
  repaired: number;
  drifts: number;
}

interface PaymentCheck {
  repaired: number;
  drift: boolean;
}

/**
 * Our records against the processor's. A run walks the payments changed in a window and asks the
 * processor about each: what the processor proves (a missed payment, refund or dispute) is
 * applied through the normal fact path, with its webhooks; any other difference becomes an item
 * for the operator. Every repair is a conditional change, so a second run repairs nothing twice.
 */
export class Reconciliation {
  private readonly running = new Set<Promise<unknown>>();

  /** Paid checkouts at the processors that the books lost. */
  private readonly unbooked: UnbookedCheckouts;

  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly writer: PaymentWriter,
    private readonly refunds: Refunds,
    private readonly disputes: Disputes,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {
    this.unbooked = new UnbookedCheckouts(db, processors, log);
  }

  /** GET /admin/v1/reconciliation and the console's queue: the open items. */
  async queue(limit: number) {
    return (await listOpenItems(this.db, limit)).map((row) => ({
      id: row.id,
      kind: row.kind,
      transactionId: row.payment_id,
      groupId: row.group_id,
      amount: row.amount,
      currency: row.currency,
      status: row.status,
      amountRefunded: row.refunded_amount,
      processor: row.processor,
      refundable:
        row.kind === "orphan_checkout_paid" || row.kind === "unbooked_payment"
          ? (row.amount ?? 0)
          : row.status !== null && row.amount !== null
            ? refundableAmount(
                {
                  status: row.status,
                  amount: row.amount,
                  refund_reserved: row.refund_reserved ?? 0,
                  paid_at_processor: row.paid_at_processor ?? false,
                },
                "operator",
              )
            : 0,
      processorPaymentId: row.processor_payment_id,
      processorEventId: row.processor_event_id,
      reason: row.detail,
      flaggedAt: row.created_at.toISOString(),
    }));
  }

  /** Closes an item with the operator's note; false when it was not open. */
  resolve(itemId: string, note: string, audit?: Audit<boolean>): Promise<boolean> {
    if (!/^\d{1,18}$/.test(itemId)) return Promise.resolve(false);
    return withAudit(this.db, audit, (q) => resolveItem(q, itemId, note));
  }

  /**
   * Starts a run over [since, until) in the background; its id, to be read with `get`. A run spans
   * groups: its audit entry (given the run's id) has none, and goes on the operator's log.
   */
  async start(
    window: { since: Date; until?: Date | undefined },
    requestedBy: string,
    audit: Audit<string>,
  ): Promise<string> {
    const until = window.until ?? this.clock.now();
    if (!(window.since < until)) {
      throw new DomainError("INVALID_REQUEST", "since must be before until (or before now, without until)");
    }
    const id = randomUUID();
    await withAudit(this.db, audit, async (q) => {
      await insertRun(q, { id, since: window.since, until, requestedBy, scheduleSlot: null });
      return id;
    });
    this.track(this.execute(id, { since: window.since, until }));
    return id;
  }

  async get(runId: string) {
    const run = UUID_PATTERN.test(runId) ? await findRun(this.db, runId) : undefined;
    if (!run) throw notFound("Reconciliation run");
    return {
      runId: run.id,
      status: run.status,
      since: run.since.toISOString(),
      until: run.until.toISOString(),
      checked: run.checked,
      repaired: run.repaired,
      drifts: run.drifts,
      startedAt: run.started_at.toISOString(),
      finishedAt: run.finished_at ? run.finished_at.toISOString() : null,
    };
  }

  /**
   * The scheduled run: one per interval across every instance (the slot is unique), covering the
   * last 48 hours. False when another instance has this slot.
   */
  async runScheduled(intervalMs: number): Promise<boolean> {
    const now = this.clock.now().getTime();
    const id = randomUUID();
    const window = { since: new Date(now - SCHEDULED_WINDOW_MS), until: new Date(now) };
    const slot = Math.floor(now / intervalMs);
    const mine = await insertRun(this.db, { id, ...window, requestedBy: "schedule", scheduleSlot: slot });
    if (mine) await this.execute(id, window);
    return mine;
  }

  /** Waits for runs started here (shutdown, tests). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private track(run: Promise<unknown>): void {
    const tracked = run.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  private async execute(runId: string, window: { since: Date; until: Date }): Promise<RunFigures> {
    const figures: RunFigures = { checked: 0, repaired: 0, drifts: 0 };
    try {
      const walk = { ...window, runStartedAt: await databaseNow(this.db) };
      let after: RunPosition | null = null;
      for (;;) {
        // Which payments to check may come from a replica; each is then compared as the primary has it.
        const batch = await paymentsChangedBetween(this.db.reads, walk, after, RUN_BATCH);
        for (const listed of batch) {
          const payment = await findPaymentById(this.db, listed.id);
          if (!payment) continue;
          const check = await this.checkPayment(payment, runId);
          if (!check) continue;
          figures.checked++;
          figures.repaired += check.repaired;
          if (check.drift) figures.drifts++;
        }
        if (batch.length < RUN_BATCH) break;
        const last = batch[batch.length - 1];
        after = last ? { updatedAt: last.position, id: last.id } : null;
        await recordRunProgress(this.db, runId, figures, false);
      }
      // Then what the books lost: paid checkouts of the window that name no payment of ours.
      figures.drifts += await this.unbooked.find(window);
    } catch (error) {
      this.log.error({ err: error, runId }, "reconciliation run stopped early");
    }
    await recordRunProgress(this.db, runId, figures, true).catch((error: Error) =>
      this.log.error({ reason: error.message, runId }, "could not record the end of a reconciliation run"),
    );
    this.log.info({ runId, ...figures }, "reconciliation run finished");
    return figures;
  }

  /** One payment against the processor; null when the processor could not be asked. */
  private async checkPayment(payment: PaymentRow, runId: string): Promise<PaymentCheck | null> {
    const adapter = this.processors.of(payment.processor);
    const deadline = { deadlineMs: LOOKUP_DEADLINE_MS };
    const unanswered = (error: Error) => {
      this.log.warn(
        { transactionId: payment.id, reason: error.message },
        "reconciliation could not ask the processor",
      );
      return null;
    };
    const found = await callProcessor(
      (signal) => adapter.lookUpCheckout(payment.processor_checkout_id as string, signal),
      deadline,
    );
    if (found.kind === "unknown" || (found.kind === "refused" && !found.missing))
      return unanswered(found.error);
    const checkout: Checkout | "missing" = found.kind === "ok" ? found.value : "missing";
    let remote: ProcessorPayment | null = null;
    const paymentRef = (checkout !== "missing" && checkout.paymentRef) || payment.processor_payment_id;
    if (paymentRef) {
      const answer = await callProcessor((signal) => adapter.lookUpPayment(paymentRef, signal), deadline);
      if (answer.kind !== "ok") return unanswered(answer.error);
      remote = answer.value;
    }
    const reason = `reconciliation:${runId}`;
    const repaired = await this.writer.inTransaction(async (tx, move) => {
      let count = 0;
      const apply = async (fact: PaymentFact, ref: string | null) => {
        const outcome = await this.writer.applyFact(tx, move, payment.id, fact, ref, reason);
        count += outcome.changed.length + (outcome.flagged ? 1 : 0);
      };
      if (checkout === "missing") {
        if (NOT_YET_PAID.has(payment.status)) {
          await apply({ kind: "expired" }, null);
          if (count > 0) {
            await openReconciliationItem(tx, {
              paymentId: payment.id,
              kind: "checkout_missing",
              detail: `the processor has no checkout ${payment.processor_checkout_id}; the payment was expired here`,
            });
          }
        }
        return count;
      }
      const paidNews = checkout.paid && (NOT_YET_PAID.has(payment.status) || !payment.paid_at_processor);
      if (paidNews) await apply({ kind: "paid" }, checkout.paymentRef);
      if (!checkout.paid && checkout.status === "expired" && payment.status === "processing") {
        await apply({ kind: "expired" }, null);
      }
      if (remote) {
        for (const pending of await listPendingRefunds(tx, payment.id)) {
          const found = remote.refunds.find(
            (refund) =>
              refund.id === pending.processor_refund_id ||
              (refund.refundIdHint === pending.id && refund.amount === pending.amount),
          );
          if (found && (await this.refunds.settleFromProcessor(tx, payment.id, found))) count++;
        }
        if (remote.amountRefunded > payment.refunded_amount) {
          await apply({ kind: "refunded", amountRefunded: remote.amountRefunded }, remote.ref);
        }
        // A disputed payment takes the outcome; one that was disputed before and moved on keeps
        // its history (replaying an old dispute would undo what came after it).
        // Every dispute is recorded as the processor has it, whatever the payment's history.
        for (const dispute of remote.disputes) await this.disputes.recordFromProcessor(tx, payment, dispute);
        const disputes =
          payment.status === "disputed"
            ? remote.disputes.filter((dispute) => !isOpenDispute(dispute.status))
            : (await hasBeenDisputed(tx, payment.id))
              ? []
              : remote.disputes;
        for (const dispute of disputes) {
          await apply(
            isOpenDispute(dispute.status)
              ? { kind: "disputed", dispute }
              : { kind: "dispute_closed", outcome: dispute.status === "won" ? "won" : "lost", dispute },
            remote.ref,
          );
        }
      }
      return count;
    });
    const drift = checkout === "missing" ? null : await this.driftOf(payment.id, checkout, remote);
    if (drift) {
      await openReconciliationItem(this.db, { paymentId: payment.id, kind: "drift", detail: drift });
      this.log.warn({ transactionId: payment.id, runId, drift }, "payment differs from the processor");
    }
    return { repaired, drift: drift !== null };
  }

  /** What still differs from the processor once everything it proves was applied. */
  private async driftOf(
    paymentId: string,
    checkout: Checkout,
    remote: ProcessorPayment | null,
  ): Promise<string | null> {
    const payment = await findPaymentById(this.db, paymentId);
    if (!payment) return null;
    const oursPaid = PAID_STATUSES.has(payment.status) || payment.paid_at_processor;
    if (oursPaid !== checkout.paid) {
      return `we have it ${payment.status}, the processor says it is ${checkout.paid ? "paid" : "not paid"}`;
    }
    if (!remote) return null;
    if (checkout.paid && remote.amount !== payment.amount) {
      return `the processor took ${remote.amount}, the payment is for ${payment.amount}`;
    }
    if (remote.amountRefunded !== payment.refunded_amount) {
      return `the processor refunded ${remote.amountRefunded}, we recorded ${payment.refunded_amount}`;
    }
    const openDispute = remote.disputes.some((dispute) => isOpenDispute(dispute.status));
    if (openDispute && payment.status !== "disputed" && !CLOSED_UNPAID.has(payment.status)) {
      return `the processor has an open dispute, the payment is ${payment.status}`;
    }
    return null;
  }
}
