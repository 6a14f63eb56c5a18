import { randomUUID } from "node:crypto";
import { type AuditEntry, withAudit } from "../../platform/audit/store.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database, Queryable } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { ProcessorPayment, ProcessorRefund } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { type IdempotentAnswer, runIdempotently } from "../core/idempotency.ts";
import { type Refunder, refundableAmount } from "../core/status.ts";
import { findPaymentById, type PaymentRow } from "../core/store.ts";
import type { PaymentQueries } from "../queries/service.ts";
import type { RefundInput } from "../schemas.ts";
import { type RefundResource, toRefundResource } from "./resource.ts";
import {
  claimDueRefunds,
  deferRefund,
  findRefund,
  findRefundOfProcessor,
  listRefunds,
  type RefundAtProcessor,
  type RefundRow,
  reserveRefund,
  settleRefund,
} from "./store.ts";

export interface RefundsConfig {
  idempotencyLeaseSeconds: number;
  /** The longest a merchant waits for the processor before hearing `pending` (10 s, docs/api.md "Refunds"). */
  refundDeadlineMs: number;
}

/** Asking again: 1 s, 2 s, 4 s, then every 10 s, so a processor back up settles within seconds. */
const retryDelayMs = (attempts: number) => Math.min(1000 * 2 ** attempts, 10_000);
const SETTLE_BATCH = 50;

/** The audit entry a refund calls for, with the payment's group, written with its reservation. */
export type RefundAudit = (refund: RefundResource, groupId: string) => AuditEntry;

/** The processor idempotency key of a refund: one per refund id, on every attempt, forever. */
export const processorKeyOf = (refundId: string) => `refund-${refundId}`;

/**
 * Refunds (docs/api.md, "Refunds"). The amount is reserved first by a conditional update, so concurrent
 * refunds never exceed the payment. The processor's answer is refused (the refund fails, its
 * reservation is released), accepted, or unknown; an unknown one stays pending and is settled by
 * asking again under the same processor key, so the processor carries out at most one refund per
 * refund id. The payment's status and amountRefunded follow the processor's refund events.
 */
export class Refunds {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly queries: PaymentQueries,
    private readonly config: RefundsConfig,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** A merchant's refund (API or dashboard). */
  async create(
    groupId: string,
    paymentId: string,
    input: RefundInput,
    context: {
      requestedBy: string;
      idempotencyKey?: string | undefined;
      /** The refund's audit entry, written in the transaction that reserves it. */
      audit: RefundAudit;
    },
  ): Promise<IdempotentAnswer<RefundResource>> {
    const payment = await this.queries.get(groupId, paymentId);
    const carryOut = (refundId: string) =>
      this.refundOnce(payment, input, context.requestedBy, refundId, "merchant", context.audit);
    if (!context.idempotencyKey) return { result: await carryOut(randomUUID()), replayed: false };
    return runIdempotently(
      this.db,
      {
        groupId,
        scope: `refund:${payment.id}`,
        key: context.idempotencyKey,
        request: input,
        leaseSeconds: this.config.idempotencyLeaseSeconds,
        fresh: randomUUID(),
        revive: (stored) => stored as string,
      },
      carryOut,
    );
  }

  /** The operator gives back all that remains, whichever group (a payment paid after cancel). */
  async createForOperator(
    transactionId: string,
    requestedBy: string,
    audit: RefundAudit,
  ): Promise<RefundResource> {
    const payment = UUID_PATTERN.test(transactionId)
      ? await findPaymentById(this.db, transactionId)
      : undefined;
    if (!payment) throw notFound();
    return this.refundOnce(payment, {}, requestedBy, randomUUID(), "operator", audit);
  }

  /** A payment's refunds in creation order, including those made at the processor directly. */
  async list(groupId: string, paymentId: string): Promise<RefundResource[]> {
    return this.listOf(await this.queries.get(groupId, paymentId));
  }

  /** The refunds of a payment already read (and so already checked to be the caller's). */
  async listOf(payment: PaymentRow): Promise<RefundResource[]> {
    return (await listRefunds(this.db, payment.id)).map(toRefundResource);
  }

  /**
   * One refund as the processor reports it (an event, a list): settles ours if it was pending.
   * True when something changed.
   */
  async settleFromProcessor(
    q: Queryable,
    paymentId: string,
    processorRefund: ProcessorRefund,
  ): Promise<boolean> {
    const refund = await findRefundOfProcessor(q, paymentId, processorRefund);
    if (refund?.status !== "pending") return false;
    if (processorRefund.status === "pending") {
      // Still under way at the processor: remember its id, and look it up later.
      await deferRefund(q, refund.id, { processorRefundId: processorRefund.id, retryInMs: 10_000 });
      return false;
    }
    const settled = await settleRefund(q, refund.id, {
      status: processorRefund.status,
      processorRefundId: processorRefund.id,
      reason: "the processor reported the refund failed",
    });
    if (settled) this.log.info({ refundId: refund.id, status: settled.status }, "pending refund settled");
    return settled !== undefined;
  }

  /** One round of asking the processor about due pending refunds; how many settled. */
  async settleDue(): Promise<number> {
    let settled = 0;
    for (const refund of await claimDueRefunds(this.db, SETTLE_BATCH, this.config.refundDeadlineMs + 5_000)) {
      const row = await this.askAgain(refund);
      if (row && row.status !== "pending") settled++;
    }
    return settled;
  }

  private async refundOnce(
    payment: PaymentRow,
    input: RefundInput,
    requestedBy: string,
    refundId: string,
    refunder: Refunder,
    audit: RefundAudit,
  ): Promise<RefundResource> {
    // A retry that took over a request which died half-way resumes its refund, never a second one.
    const earlier = await findRefund(this.db, refundId);
    if (earlier) {
      const current = (earlier.status === "pending" ? await this.askAgain(earlier) : earlier) ?? earlier;
      if (current.status === "failed") {
        throw new DomainError("PROCESSOR_ERROR", "The payment processor refused the refund");
      }
      return toRefundResource(current);
    }
    // More than the payment can never fit; said before any figure reaches the database.
    if (input.amount !== undefined && input.amount > payment.amount)
      throw await this.notAllowed(payment, refunder);
    const reserved = await withAudit(
      this.db,
      (row: RefundAtProcessor | undefined) => (row ? audit(toRefundResource(row), payment.group_id) : null),
      (q) =>
        reserveRefund(q, {
          id: refundId,
          paymentId: payment.id,
          groupId: refunder === "operator" ? null : payment.group_id,
          refunder,
          amount: input.amount ?? null,
          reason: input.reason ?? null,
          requestedBy,
          busyForMs: this.config.refundDeadlineMs + 5_000,
        }),
    );
    if (!reserved) throw await this.notAllowed(payment, refunder);
    if (!reserved.processor_payment_id) {
      await settleRefund(this.db, refundId, {
        status: "failed",
        processorRefundId: null,
        reason: "no payment at the processor",
      });
      throw new DomainError("PROCESSOR_ERROR", "The processor has no payment to refund for this transaction");
    }
    const outcome = await this.ask(reserved);
    if (outcome.status === "failed") {
      throw new DomainError("PROCESSOR_ERROR", "The payment processor refused the refund");
    }
    return toRefundResource(outcome);
  }

  private async notAllowed(payment: PaymentRow, refunder: Refunder): Promise<DomainError> {
    const current = (await findPaymentById(this.db, payment.id)) ?? payment;
    const remaining = refundableAmount(current, refunder);
    return new DomainError(
      "REFUND_NOT_ALLOWED",
      remaining > 0 || current.status === "succeeded" || current.status === "partially_refunded"
        ? `At most ${remaining} cents remain to refund`
        : `A ${current.status} payment cannot be refunded`,
    );
  }

  /**
   * A pending refund, asked about again: by the processor's id when we have it, else by creating
   * it once more under the same key (which the processor answers with the refund it already made).
   */
  private async askAgain(refund: RefundAtProcessor): Promise<RefundRow | undefined> {
    if (!refund.processor_payment_id) return refund;
    const adapter = this.processors.of(refund.processor);
    const deferred = () =>
      deferRefund(this.db, refund.id, { processorRefundId: null, retryInMs: retryDelayMs(refund.attempts) });
    if (refund.processor_refund_id) {
      const refundId = refund.processor_refund_id;
      const known = await callProcessor((signal) => adapter.lookUpRefund(refundId, signal), {
        deadlineMs: LOOKUP_DEADLINE_MS,
      });
      if (known.kind !== "ok") return deferred();
      if (known.value) return this.record(refund, known.value);
    }
    if (this.clock.now().getTime() - refund.created_at.getTime() > adapter.limits.idempotencyKeyLifetimeMs) {
      const payment = await callProcessor(
        (signal) => adapter.lookUpPayment(refund.processor_payment_id as string, signal),
        { deadlineMs: LOOKUP_DEADLINE_MS },
      );
      return payment.kind === "ok" ? this.settleByList(refund, payment.value) : deferred();
    }
    return this.ask(refund);
  }

  /** Past the processor's key lifetime, only its list of refunds can say whether ours exists. */
  private async settleByList(
    refund: RefundAtProcessor,
    payment: ProcessorPayment | null,
  ): Promise<RefundRow | undefined> {
    const found = payment?.refunds.find(
      (candidate) => candidate.refundIdHint === refund.id && candidate.amount === refund.amount,
    );
    if (found) return this.record(refund, found);
    return settleRefund(this.db, refund.id, {
      status: "failed",
      processorRefundId: null,
      reason: "the processor never carried out the refund",
    });
  }

  /** Asks the processor to carry out the refund, under its one key. */
  private async ask(refund: RefundAtProcessor): Promise<RefundRow> {
    const adapter = this.processors.of(refund.processor);
    // The merchant hears within the deadline whatever the processor does; the call stops there.
    const answer = await callProcessor(
      (signal) =>
        adapter.refund(
          {
            paymentRef: refund.processor_payment_id as string,
            amount: refund.amount,
            reason: refund.reason,
            refundId: refund.id,
            transactionId: refund.payment_id,
            idempotencyKey: processorKeyOf(refund.id),
          },
          signal,
        ),
      { deadlineMs: this.config.refundDeadlineMs },
    );
    if (answer.kind === "ok") return (await this.record(refund, answer.value)) ?? refund;
    if (answer.kind === "refused") {
      this.log.warn(
        { transactionId: refund.payment_id, refundId: refund.id, reason: answer.error.message },
        "refund refused",
      );
      return (
        (await settleRefund(this.db, refund.id, {
          status: "failed",
          processorRefundId: null,
          reason: answer.error.message,
        })) ?? refund
      );
    }
    // Unknown is not "no": the refund stays pending, reserved, and is asked about again.
    this.log.warn(
      { transactionId: refund.payment_id, refundId: refund.id, reason: answer.error.message },
      "refund outcome unknown; it stays pending and is asked about again under the same key",
    );
    return (
      (await deferRefund(this.db, refund.id, {
        processorRefundId: null,
        retryInMs: retryDelayMs(refund.attempts),
      })) ?? refund
    );
  }

  /** The processor's word on one refund, recorded; the row as it now is. */
  private async record(refund: RefundAtProcessor, answer: ProcessorRefund): Promise<RefundRow | undefined> {
    if (answer.status === "pending") {
      return deferRefund(this.db, refund.id, {
        processorRefundId: answer.id,
        retryInMs: retryDelayMs(refund.attempts),
      });
    }
    const settled = await settleRefund(this.db, refund.id, {
      status: answer.status,
      processorRefundId: answer.id,
      reason: "the processor reported the refund failed",
    });
    return settled ?? (await findRefund(this.db, refund.id));
  }
}
