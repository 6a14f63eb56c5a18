import { randomUUID } from "node:crypto";
import type { Database, Queryable } from "../../platform/db/database.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import type { WebhookOutbox } from "../../webhooks/outbox.ts";
import { enqueueReceipt } from "../receipts/outbox.ts";
import { EVENT_FOR_STATUS, webhookMessageFor } from "./events.ts";
import { type PaymentFact, planFact } from "./facts.ts";
import { FINAL_STATUSES, PAID_STATUSES, type PaymentStatus, sourcesOf } from "./status.ts";
import {
  lockPayment,
  openReconciliationItem,
  type PaymentRow,
  recordMoneyOnClosed,
  recordProcessorRefunds,
  updatePaymentStatus,
} from "./store.ts";

export interface TransitionRequest {
  paymentId: string;
  to: PaymentStatus;
  reason: string;
  /** Narrows the table's sources (e.g. cancel only from pending/processing). */
  from?: readonly PaymentStatus[];
  groupId?: string;
  processorPaymentId?: string | null;
  refundedAmount?: number;
}

export interface FactOutcome {
  paymentId: string;
  changed: PaymentStatus[];
  /** A reconciliation item was opened for the payment. */
  flagged: boolean;
}

export type Move = (request: TransitionRequest) => Promise<PaymentRow | null>;

/**
 * The one write path of payment statuses. Every change is a conditional update through the
 * transition table, written with the webhook event it causes in the same transaction; the
 * dispatcher is woken once, after commit.
 */
export class PaymentWriter {
  constructor(
    private readonly db: Database,
    private readonly outbox: WebhookOutbox,
    private readonly log: Logger,
  ) {}

  /**
   * A single transition in its own transaction. One that causes no event is a single atomic
   * statement, so it skips BEGIN/COMMIT.
   */
  async transition(request: TransitionRequest): Promise<PaymentRow | null> {
    if (EVENT_FOR_STATUS[request.to] !== undefined) return this.inTransaction((_tx, move) => move(request));
    return (await this.changeStatus(this.db, request))?.payment ?? null;
  }

  /** Runs `work` in one transaction, giving it `move` for status changes. */
  async inTransaction<T>(work: (tx: Queryable, move: Move) => Promise<T>): Promise<T> {
    let queued = false;
    const result = await this.db.transaction((tx) =>
      work(tx, async (request) => {
        const change = await this.changeStatus(tx, request);
        if (change?.queued) queued = true;
        return change?.payment ?? null;
      }),
    );
    if (queued) this.outbox.wake();
    return result;
  }

  /** One processor fact, in its own transaction. */
  applyFactNow(paymentId: string, fact: PaymentFact, paymentRef: string | null, reason: string) {
    return this.inTransaction((tx, move) => this.applyFact(tx, move, paymentId, fact, paymentRef, reason));
  }

  /** Applies one processor fact to a payment inside the caller's transaction. */
  async applyFact(
    tx: Queryable,
    move: Move,
    paymentId: string,
    fact: PaymentFact,
    paymentRef: string | null,
    reason: string,
  ): Promise<FactOutcome> {
    const outcome: FactOutcome = { paymentId, changed: [], flagged: false };
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return outcome;
    const plan = planFact(
      { status: payment.status, amount: payment.amount, refundedAmount: payment.refunded_amount },
      fact,
    );
    if (plan.kind === "closed") {
      await recordMoneyOnClosed(tx, paymentId, {
        processorPaymentId: paymentRef,
        refundedAmount: plan.refundedAmount,
      });
      if (plan.refundedAmount !== null) await this.recordLearntRefunds(tx, payment, plan.refundedAmount);
      if (plan.item) {
        outcome.flagged = await openReconciliationItem(tx, {
          paymentId,
          kind: plan.item,
          detail: plan.detail,
        });
        if (outcome.flagged) this.log.warn({ transactionId: paymentId, kind: plan.item }, plan.detail);
      }
      return outcome;
    }
    for (const step of plan.steps) {
      const changed = await move({
        paymentId,
        to: step.to,
        reason,
        processorPaymentId: paymentRef,
        ...(step.refundedAmount !== undefined && { refundedAmount: step.refundedAmount }),
      });
      if (!changed) break;
      outcome.changed.push(step.to);
    }
    if (fact.kind === "refunded" && outcome.changed.some((status) => status.endsWith("refunded"))) {
      await this.recordLearntRefunds(tx, payment, fact.amountRefunded);
    }
    return outcome;
  }

  private recordLearntRefunds(tx: Queryable, payment: PaymentRow, refundedTotal: number) {
    const refunded = { id: payment.id, groupId: payment.group_id, currency: payment.currency };
    return recordProcessorRefunds(tx, refunded, refundedTotal, randomUUID());
  }

  /** The conditional update through the transition table, and the webhook it causes. */
  private async changeStatus(
    q: Queryable,
    request: TransitionRequest,
  ): Promise<{ payment: PaymentRow; queued: boolean } | null> {
    const allowedFrom = sourcesOf(request.to, request.from);
    if (allowedFrom.length === 0) return null;
    const changed = await updatePaymentStatus(q, {
      paymentId: request.paymentId,
      to: request.to,
      allowedFrom,
      setsCompletedAt: FINAL_STATUSES.has(request.to),
      paid: PAID_STATUSES.has(request.to),
      reason: request.reason,
      groupId: request.groupId,
      processorPaymentId: request.processorPaymentId,
      refundedAmount: request.refundedAmount,
    });
    if (!changed) return null;
    const message = webhookMessageFor(changed.payment, changed.groupWebhookUrl);
    if (!message) return { payment: changed.payment, queued: false };
    const { eventId, queued } = await this.outbox.enqueue(q, message);
    const { payment } = changed;
    await enqueueReceipt(q, {
      eventId,
      event: message.event,
      paymentId: payment.id,
      groupId: payment.group_id,
      customerEmail: payment.customer_email,
      currency: payment.currency,
      amount: payment.amount,
      refunded: changed.refunded,
      receiptsOn: changed.groupReceipts,
    });
    return { payment, queued };
  }
}
