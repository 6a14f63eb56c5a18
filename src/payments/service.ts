import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { type Audit, withAudit } from "../audit/store.ts";
import type { Config } from "../config.ts";
import type { Database, Queryable } from "../db/database.ts";
import { ApiError, notFound } from "../http/errors.ts";
import { UUID_PATTERN } from "../http/schemas.ts";
import { reachableUrl } from "../net/unreachable-host.ts";
import {
  type CheckoutSession,
  type Processor,
  ProcessorError,
  type ProcessorEvent,
  type ProcessorFact,
} from "../processor/processor.ts";
import type { WebhookOutbox } from "../webhooks/outbox.ts";
import { EVENT_FOR_STATUS, webhookMessageFor } from "./events.ts";
import { planFact } from "./facts.ts";
import { runIdempotently } from "./idempotency.ts";
import { descriptionOf, storedMetadata } from "./metadata.ts";
import { type RefundResource, toRefundResource } from "./refunds.ts";
import type { CreatePaymentInput, CreatePaymentResult, RefundInput } from "./schemas.ts";
import {
  CANCELLABLE,
  FINAL_STATUSES,
  LINK_OPEN_STATUSES,
  PAID_STATUSES,
  type PaymentStatus,
  sourcesOf,
} from "./status.ts";
import {
  type CreatePlan,
  type Currency,
  chooseSafeSite,
  dailyPaymentTotals,
  findPayment,
  findPaymentBy,
  findPaymentByLinkToken,
  flagForReconciliation,
  insertPayment,
  listDueForExpiry,
  listFlaggedForReconciliation,
  listPayments,
  listProcessorMismatches,
  listRefunds,
  listStatusChanges,
  lockPayment,
  type NewPayment,
  type PaymentFilter,
  type PaymentRow,
  recordProcessorEvent,
  recordProcessorRefunds,
  reserveRefund,
  resolvePaymentReconciliation,
  resolveProcessorMismatch,
  type StatusUpdate,
  settleRefund,
  updatePaymentStatus,
} from "./store.ts";

export type PaymentsConfig = Pick<
  Config,
  "checkoutTtlSeconds" | "allowedPrivateHosts" | "fallbackUrl" | "idempotencyLeaseSeconds"
>;

export interface PaymentsServiceOptions {
  db: Database;
  processor: Processor;
  outbox: WebhookOutbox;
  config: PaymentsConfig;
  log: FastifyBaseLogger;
}

export interface TransitionRequest {
  paymentId: string;
  to: PaymentStatus;
  reason: string;
  /** Narrows the table's sources (e.g. cancel only from pending/processing). */
  from?: readonly PaymentStatus[];
  groupId?: string;
  /** False when the merchant learns the outcome synchronously (a failed create). */
  notify?: boolean;
  processorSessionId?: string;
  processorCheckoutUrl?: string;
  processorPaymentIntentId?: string | null;
  refundedAmount?: number;
}

export interface FactOutcome {
  paymentId: string | null;
  changed: PaymentStatus[];
  flaggedForReconciliation: boolean;
}

/** What the hosted link (/pay/:token) does for the customer. */
export type LinkAnswer =
  | { kind: "redirect"; url: string }
  | { kind: "not_found" }
  | { kind: "already_paid" }
  | { kind: "expired" };

const EXPIRY_BATCH = 100;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,64}$/;

function amountMismatch(event: ProcessorEvent, payment: PaymentRow): string | null {
  if (event.amount !== null && event.amount !== payment.amount) {
    return `amount ${event.amount} differs from the payment's ${payment.amount}`;
  }
  if (event.currency !== null && event.currency.toLowerCase() !== payment.currency) {
    return `currency ${event.currency} differs from the payment's ${payment.currency}`;
  }
  return null;
}

/** The first `{transactionId}` only, as spec §4.2 says. */
export const substituteTransactionId = (url: string, transactionId: string): string =>
  url.replace("{transactionId}", () => transactionId);

/**
 * Payments as every interface uses them: the merchant API, the customer pages, the processor
 * intake, the expiry sweeper and the CLI. Each operation makes its status change, writes the
 * webhook it causes in the same transaction, and wakes the dispatcher after commit, here and
 * nowhere else.
 */
export class PaymentsService {
  private readonly db: Database;
  private readonly processor: Processor;
  private readonly outbox: WebhookOutbox;
  private readonly config: PaymentsConfig;
  private readonly log: FastifyBaseLogger;
  // Per-group turn counter; each instance rotates on its own, which spreads load just as well.
  private readonly rotation = new Map<string, number>();

  constructor(options: PaymentsServiceOptions) {
    this.db = options.db;
    this.processor = options.processor;
    this.outbox = options.outbox;
    this.config = options.config;
    this.log = options.log;
  }

  /**
   * Spec §4.2. The payment is written once, after the processor answered, already `processing`
   * (or `failed`): no record is ever left `pending`. With an Idempotency-Key the same request gets
   * the same answer for 24 hours, and a request that died half-way is completed by its retry.
   */
  async create(
    groupId: string,
    input: CreatePaymentInput,
    idempotencyKey?: string,
  ): Promise<CreatePaymentResult> {
    if (input.customerEmail === undefined) {
      throw new ApiError(
        "PROCESSOR_ERROR",
        "The processor rejected the payment: customerEmail is required",
        undefined,
        { clientFault: true },
      );
    }
    const fresh = {
      transactionId: randomUUID(),
      linkToken: randomBytes(24).toString("base64url"),
      expiresAt: new Date(Date.now() + this.config.checkoutTtlSeconds * 1000),
    };
    const turn = this.nextTurn(groupId);
    const customerEmail = input.customerEmail;
    const carryOut = (plan: CreatePlan) => this.carryOut(groupId, { ...input, customerEmail }, plan);
    if (!idempotencyKey)
      return carryOut({ ...fresh, safeSite: await chooseSafeSite(this.db, groupId, turn) });
    return runIdempotently(
      this.db,
      {
        groupId,
        key: idempotencyKey,
        request: input,
        leaseSeconds: this.config.idempotencyLeaseSeconds,
        fresh,
        turn,
      },
      carryOut,
    );
  }

  private async carryOut(
    groupId: string,
    input: CreatePaymentInput & { customerEmail: string },
    plan: CreatePlan,
  ): Promise<CreatePaymentResult> {
    const { safeSite } = plan;
    if (!safeSite) {
      throw new ApiError("NO_ACTIVE_SAFESITE", "This group has no active SafeSite to host the payment link");
    }
    const id = plan.transactionId;
    const currency = input.currency.toLowerCase() as Currency;
    const metadata = storedMetadata(input.metadata);
    // An unreachable webhookUrl is not an error (spec §6.3 rule 8): the payment simply has none.
    const webhookUrl = input.webhookUrl
      ? reachableUrl(input.webhookUrl, this.config.allowedPrivateHosts)
      : null;
    if (input.webhookUrl && !webhookUrl) this.logDroppedWebhookUrl(id, input.webhookUrl);
    const payment: NewPayment = {
      plan: { ...plan, safeSite },
      groupId,
      amount: input.amount,
      currency,
      customerEmail: input.customerEmail,
      customerName: input.customerName ?? null,
      description: descriptionOf(input.description, metadata),
      metadata,
      successUrl: substituteTransactionId(input.successUrl, id),
      cancelUrl: substituteTransactionId(input.cancelUrl, id),
      webhookUrl: webhookUrl?.href ?? null,
    };
    const returnUrl = `${safeSite.url}/return/${plan.linkToken}`;
    let session: CheckoutSession;
    try {
      session = await this.processor.createCheckoutSession({
        transactionId: id,
        amount: input.amount,
        currency,
        customerEmail: input.customerEmail,
        successUrl: returnUrl,
        cancelUrl: returnUrl,
        expiresAt: plan.expiresAt,
        // The same for a retry of the same plan, so the processor answers with the same session.
        idempotencyKey: `checkout-session-${id}`,
      });
    } catch (error) {
      this.log.warn({ err: error, transactionId: id }, "processor refused the checkout session");
      // Kept for the record; the merchant hears of it in the response, so no webhook is sent.
      await insertPayment(this.db, payment, { status: "failed", reason: "processor_error" });
      throw new ApiError("PROCESSOR_ERROR", "The payment processor could not create the checkout session");
    }
    await insertPayment(this.db, payment, {
      status: "processing",
      processorSessionId: session.id,
      processorCheckoutUrl: session.url,
    });
    return {
      transactionId: id,
      paymentUrl: `${safeSite.url}/pay/${plan.linkToken}`,
      sessionId: session.id,
      expiresAt: plan.expiresAt.toISOString(),
    };
  }

  /** The caller's payment; unknown, malformed and other groups' ids are all 404 (§4.3, §5). */
  async get(groupId: string, id: string): Promise<PaymentRow> {
    const payment = UUID_PATTERN.test(id) ? await findPayment(this.db, groupId, id) : undefined;
    if (!payment) throw notFound();
    return payment;
  }

  /** A page of the group's payments, newest first. */
  list(groupId: string, filter: PaymentFilter, limit: number): Promise<PaymentRow[]> {
    return listPayments(this.db, groupId, filter, limit);
  }

  statusHistory(payment: PaymentRow) {
    return listStatusChanges(this.db, payment.id);
  }

  /** Spec §4.4: only pending or processing payments; the hosted link stays open (§3.2). */
  async cancel(groupId: string, id: string): Promise<void> {
    const cancelled = await this.transition({
      paymentId: id,
      groupId,
      to: "cancelled",
      from: CANCELLABLE,
      reason: "merchant_cancel",
    });
    if (cancelled) return;
    await this.get(groupId, id); // not the caller's payment: 404
    throw new ApiError(
      "ALREADY_COMPLETED",
      "Only pending or processing payments can be cancelled; read the payment for its current status",
    );
  }

  /**
   * A verified processor event. Replays are acknowledged without effect. Finding the payment may
   * ask the processor; if it cannot answer, this throws so the processor retries the event.
   */
  async applyProcessorEvent(event: ProcessorEvent): Promise<FactOutcome> {
    const match = event.fact ? await this.matchEvent(event) : { payment: undefined, mismatch: null };
    const paymentId = match.payment?.id ?? null;
    if (event.fact && !paymentId) {
      this.log.warn({ eventId: event.id, type: event.type }, "processor event for an unknown payment");
    }
    if (match.mismatch) {
      this.log.warn(
        { eventId: event.id, type: event.type, transactionId: paymentId, mismatch: match.mismatch },
        "processor event refused: it does not match the payment it names; listed for reconciliation",
      );
    }
    return this.inTransaction(async (tx, move) => {
      const fresh = await recordProcessorEvent(tx, {
        id: event.id,
        type: event.type,
        paymentId,
        mismatch: match.mismatch,
      });
      if (!fresh || !event.fact || !paymentId || match.mismatch) {
        return { paymentId, changed: [], flaggedForReconciliation: false };
      }
      const reason = `processor_event:${event.id}`;
      return this.applyFact(tx, move, paymentId, event.fact, event.paymentIntentId, reason);
    });
  }

  /**
   * DESIGN §5: refunds `amount` (all that remains without one) of a succeeded or partially
   * refunded payment. The amount is reserved first by a conditional update, so concurrent refunds
   * never exceed the payment; the payment's status and amountRefunded change when the processor's
   * event confirms the refund, through the same fact path as every other event.
   */
  async refund(
    groupId: string,
    paymentId: string,
    input: RefundInput,
    context: { requestedBy: string; idempotencyKey?: string | undefined },
  ): Promise<RefundResource> {
    const payment = await this.get(groupId, paymentId);
    const carryOut = (refundId: string) => this.refundOnce(payment, input, context.requestedBy, refundId);
    if (!context.idempotencyKey) return carryOut(randomUUID());
    // Refund keys share the group's key space with creates, kept apart by a prefix.
    return runIdempotently(
      this.db,
      {
        groupId,
        key: `refund:${payment.id}:${context.idempotencyKey}`,
        request: input,
        leaseSeconds: this.config.idempotencyLeaseSeconds,
        fresh: { transactionId: randomUUID(), linkToken: "", expiresAt: new Date() },
        turn: 0,
      },
      (plan) => carryOut(plan.transactionId),
    );
  }

  private async refundOnce(
    payment: PaymentRow,
    input: RefundInput,
    requestedBy: string,
    refundId: string,
  ): Promise<RefundResource> {
    const reserved = await reserveRefund(this.db, {
      id: refundId,
      paymentId: payment.id,
      groupId: payment.group_id,
      amount: input.amount ?? null,
      reason: input.reason ?? null,
      requestedBy,
    });
    if (!reserved) {
      const current = await this.get(payment.group_id, payment.id);
      const remaining = current.amount - current.refund_reserved;
      throw new ApiError(
        "REFUND_NOT_ALLOWED",
        current.status === "succeeded" || current.status === "partially_refunded"
          ? `At most ${remaining} cents remain to refund`
          : `A ${current.status} payment cannot be refunded`,
      );
    }
    if (!reserved.paymentIntentId) {
      await settleRefund(this.db, refundId, {
        status: "failed",
        reason: "no payment intent at the processor",
      });
      throw new ApiError("PROCESSOR_ERROR", "The processor has no payment to refund for this transaction");
    }
    try {
      const answer = await this.processor.createRefund({
        paymentIntentId: reserved.paymentIntentId,
        amount: reserved.refund.amount,
        reason: input.reason ?? null,
        idempotencyKey: `refund-${refundId}`,
      });
      if (answer.status === "failed") throw new ProcessorError("the processor declined the refund");
      const settled =
        answer.status === "succeeded"
          ? await settleRefund(this.db, refundId, { status: "succeeded", processorRefundId: answer.id })
          : undefined;
      return toRefundResource(settled ?? { ...reserved.refund, processor_refund_id: answer.id });
    } catch (error) {
      this.log.warn({ err: error, transactionId: payment.id, refundId }, "processor refused the refund");
      await settleRefund(this.db, refundId, { status: "failed", reason: (error as Error).message });
      throw new ApiError("PROCESSOR_ERROR", "The payment processor refused the refund");
    }
  }

  /** A payment's refunds in creation order, including those made at the processor directly. */
  async refunds(groupId: string, paymentId: string): Promise<RefundResource[]> {
    return this.refundsOf(await this.get(groupId, paymentId));
  }

  /** The refunds of a payment already read (and so already checked to be the caller's). */
  async refundsOf(payment: PaymentRow): Promise<RefundResource[]> {
    return (await listRefunds(this.db, payment.id)).map(toRefundResource);
  }

  /** Closes links that ran out; the processor is asked first, so a last-second payment succeeds. */
  async expireDue(): Promise<number> {
    let changed = 0;
    for (const payment of await listDueForExpiry(this.db, EXPIRY_BATCH)) {
      try {
        const session = payment.processor_session_id
          ? await this.processor.expireCheckoutSession(payment.processor_session_id)
          : undefined;
        const fact: ProcessorFact = session?.paid ? { kind: "paid" } : { kind: "expired" };
        const outcome = await this.inTransaction((tx, move) =>
          this.applyFact(tx, move, payment.id, fact, session?.paymentIntentId ?? null, "expiry_sweep"),
        );
        changed += outcome.changed.length;
      } catch (error) {
        // Left processing; the next sweep tries again once the processor answers.
        this.log.warn({ err: error, transactionId: payment.id }, "could not expire payment");
      }
    }
    return changed;
  }

  /** Where the hosted payment link sends the customer. */
  async openLink(token: string): Promise<LinkAnswer> {
    const payment = await this.byLinkToken(token);
    if (!payment?.processor_checkout_url) return { kind: "not_found" };
    if (PAID_STATUSES.has(payment.status)) return { kind: "already_paid" };
    // A cancelled payment's link stays open until it expires (spec §3.2).
    if (payment.expires_at.getTime() <= Date.now() || !LINK_OPEN_STATUSES.has(payment.status)) {
      return { kind: "expired" };
    }
    return { kind: "redirect", url: payment.processor_checkout_url };
  }

  /**
   * Where a customer coming back from the processor goes; null for an unknown token. The
   * processor's own word decides success, so the merchant's success page finds the payment paid.
   */
  async returnDestination(token: string): Promise<string | null> {
    let payment = await this.byLinkToken(token);
    if (!payment) return null;
    const sessionId = payment.processor_session_id;
    if (sessionId && !PAID_STATUSES.has(payment.status)) {
      try {
        const session = await this.processor.retrieveCheckoutSession(sessionId);
        if (session.paid) {
          const paymentId = payment.id;
          await this.inTransaction((tx, move) =>
            this.applyFact(tx, move, paymentId, { kind: "paid" }, session.paymentIntentId, "customer_return"),
          );
          // Re-read: the processor's own event may have applied the payment before we did.
          payment = (await this.byLinkToken(token)) ?? payment;
        }
      } catch (error) {
        // Without the processor's answer the stored status decides; the event will follow.
        this.log.warn({ err: error, transactionId: payment.id }, "processor unavailable on customer return");
      }
    }
    const target = PAID_STATUSES.has(payment.status) ? payment.success_url : payment.cancel_url;
    return reachableUrl(target, this.config.allowedPrivateHosts)?.href ?? this.config.fallbackUrl;
  }

  /**
   * What the operator must look at: payments where money moved after they were closed, and
   * processor events refused because they did not match the payment they named.
   */
  async reconciliationQueue(limit: number) {
    const flagged = await listFlaggedForReconciliation(this.db, limit);
    const mismatches = await listProcessorMismatches(this.db, limit);
    return [
      ...flagged.map((row) => ({
        kind: "paid_after_close" as const,
        transactionId: row.id,
        groupId: row.group_id,
        amount: row.amount,
        currency: row.currency,
        processorSessionId: row.processor_session_id,
        processorPaymentIntentId: row.processor_payment_intent_id,
        reason: row.reconciliation_reason,
        flaggedAt: row.updated_at.toISOString(),
      })),
      ...mismatches.map((row) => ({
        kind: "processor_mismatch" as const,
        transactionId: row.payment_id,
        groupId: row.group_id,
        processorEventId: row.id,
        processorEventType: row.type,
        reason: row.mismatch,
        flaggedAt: row.received_at.toISOString(),
      })),
    ];
  }

  /** Closes a reconciliation item with the operator's note; false when it was already closed. */
  resolveReconciliation(
    item: { kind: "paid_after_close" | "processor_mismatch"; id: string },
    note: string,
    audit?: Audit<boolean>,
  ): Promise<boolean> {
    if (item.kind === "paid_after_close" && !UUID_PATTERN.test(item.id)) return Promise.resolve(false);
    return withAudit(this.db, audit, (q) =>
      item.kind === "paid_after_close"
        ? resolvePaymentReconciliation(q, item.id, note)
        : resolveProcessorMismatch(q, item.id, note),
    );
  }

  /** The last `days` UTC days of a group's payments, by day, status and currency. */
  dailyTotals(groupId: string, since: Date) {
    return dailyPaymentTotals(this.db, groupId, since);
  }

  private logDroppedWebhookUrl(transactionId: string, url: string): void {
    let host = "(not a valid URL)";
    try {
      host = new URL(url).host;
    } catch {}
    this.log.info(
      { transactionId, webhookHost: host },
      "webhookUrl dropped: its host is loopback, private or reserved, or it is not a valid http(s) URL, so no " +
        "webhook will be sent (the payment is created as usual). For local development, list the host in " +
        "ALLOWED_PRIVATE_HOSTS.",
    );
  }

  private byLinkToken(token: string): Promise<PaymentRow | undefined> {
    return TOKEN_PATTERN.test(token) ? findPaymentByLinkToken(this.db, token) : Promise.resolve(undefined);
  }

  private nextTurn(groupId: string): number {
    const turn = this.rotation.get(groupId) ?? 0;
    this.rotation.set(groupId, (turn + 1) % 1_000_000);
    return turn;
  }

  /**
   * The payment an event is about, and why it may not change it. An event may change a payment
   * only if it names that payment's own checkout session or payment intent, as stored or as the
   * processor confirms, and its amount and currency match (DESIGN §2). Metadata only suggests a
   * candidate: anyone sharing the processor account can write it.
   */
  private async matchEvent(
    event: ProcessorEvent,
  ): Promise<{ payment: PaymentRow | undefined; mismatch: string | null }> {
    const named =
      (event.sessionId ? await findPaymentBy(this.db, "session", event.sessionId) : undefined) ??
      (event.paymentIntentId
        ? await findPaymentBy(this.db, "payment_intent", event.paymentIntentId)
        : undefined);
    if (named) return { payment: named, mismatch: amountMismatch(event, named) };

    const hint =
      event.transactionIdHint ??
      (event.paymentIntentId
        ? await this.processor.transactionIdOfPaymentIntent(event.paymentIntentId)
        : null);
    const candidate = hint && UUID_PATTERN.test(hint) ? await findPaymentBy(this.db, "id", hint) : undefined;
    if (!candidate) return { payment: undefined, mismatch: null };
    if (event.sessionId) {
      return { payment: candidate, mismatch: `checkout session ${event.sessionId} is not this payment's` };
    }
    // A refund or dispute can come before we stored the payment intent: the processor says
    // whether it belongs to the checkout session we opened for this payment.
    const ours = candidate.processor_session_id
      ? (await this.processor.retrieveCheckoutSession(candidate.processor_session_id)).paymentIntentId
      : null;
    if (!event.paymentIntentId || ours !== event.paymentIntentId) {
      const intent = event.paymentIntentId ?? "(none)";
      return { payment: candidate, mismatch: `payment intent ${intent} is not this payment's` };
    }
    return { payment: candidate, mismatch: amountMismatch(event, candidate) };
  }

  /** Applies one fact to a locked payment inside the caller's transaction. */
  private async applyFact(
    tx: Queryable,
    move: (request: TransitionRequest) => Promise<PaymentRow | null>,
    paymentId: string,
    fact: ProcessorFact,
    paymentIntentId: string | null,
    reason: string,
  ): Promise<FactOutcome> {
    const outcome: FactOutcome = { paymentId, changed: [], flaggedForReconciliation: false };
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return outcome;
    const plan = planFact(
      { status: payment.status, amount: payment.amount, refundedAmount: payment.refunded_amount },
      fact,
    );
    if (plan.kind === "reconcile") {
      await flagForReconciliation(tx, paymentId, plan.reason, paymentIntentId);
      this.log.warn({ paymentId, reason: plan.reason }, "payment needs reconciliation");
      return { ...outcome, flaggedForReconciliation: true };
    }
    for (const step of plan.steps) {
      const changed = await move({
        paymentId,
        to: step.to,
        reason,
        processorPaymentIntentId: paymentIntentId,
        ...(step.refundedAmount !== undefined && { refundedAmount: step.refundedAmount }),
      });
      if (!changed) break;
      outcome.changed.push(step.to);
    }
    if (fact.kind === "refunded" && outcome.changed.some((status) => status.endsWith("refunded"))) {
      const refunded = { id: payment.id, groupId: payment.group_id, currency: payment.currency };
      await recordProcessorRefunds(tx, refunded, fact.amountRefunded, randomUUID());
    }
    return outcome;
  }

  /**
   * A single transition in its own transaction. One that causes no event is a single atomic
   * statement, so it skips BEGIN/COMMIT: two round trips fewer on the create path.
   */
  private async transition(request: TransitionRequest): Promise<PaymentRow | null> {
    const causesEvent = request.notify !== false && EVENT_FOR_STATUS[request.to] !== undefined;
    if (causesEvent) return this.inTransaction((_tx, move) => move(request));
    return (await this.changeStatus(this.db, request))?.payment ?? null;
  }

  /**
   * Runs `work` in one transaction, giving it `move` for status changes; wakes the webhook
   * dispatcher once, after commit, when any change queued a delivery.
   */
  private async inTransaction<T>(
    work: (tx: Queryable, move: (request: TransitionRequest) => Promise<PaymentRow | null>) => Promise<T>,
  ): Promise<T> {
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

  /** The conditional update through the transition table, and the webhook it causes. */
  private async changeStatus(
    q: Queryable,
    request: TransitionRequest,
  ): Promise<{ payment: PaymentRow; queued: boolean } | null> {
    const allowedFrom = sourcesOf(request.to, request.from);
    if (allowedFrom.length === 0) return null;
    const update: StatusUpdate = {
      paymentId: request.paymentId,
      to: request.to,
      allowedFrom,
      setsCompletedAt: FINAL_STATUSES.has(request.to),
      reason: request.reason,
      groupId: request.groupId,
      processorSessionId: request.processorSessionId,
      processorCheckoutUrl: request.processorCheckoutUrl,
      processorPaymentIntentId: request.processorPaymentIntentId,
      refundedAmount: request.refundedAmount,
    };
    const changed = await updatePaymentStatus(q, update);
    if (!changed) return null;
    const message = request.notify === false ? null : webhookMessageFor(changed.payment);
    const queued = message ? await this.outbox.enqueue(q, message) : false;
    return { payment: changed.payment, queued };
  }
}
