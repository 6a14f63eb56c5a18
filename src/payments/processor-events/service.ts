import type { Config } from "../../config/config.ts";
import type { Database } from "../../platform/db/database.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import { reachableUrl } from "../../platform/net/unreachable-host.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type CallOutcome, callProcessor } from "../../processor/call.ts";
import {
  type ProcessorAdapter,
  type ProcessorEvent,
  ProcessorUnavailableError,
} from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { PAID_STATUSES } from "../core/status.ts";
import { findPaymentById, openReconciliationItem, type PaymentRow } from "../core/store.ts";
import type { PaymentWriter } from "../core/writer.ts";
import type { Disputes } from "../disputes/service.ts";
import type { PaymentQueries } from "../queries/service.ts";
import type { Refunds } from "../refunds/service.ts";
import { findPaymentAtProcessor, recordProcessorEvent } from "./store.ts";

export type ProcessorEventsConfig = Pick<Config, "allowedPrivateHosts" | "fallbackUrl">;

function amountMismatch(event: ProcessorEvent, payment: PaymentRow): string | null {
  if (event.amount !== null && event.amount !== payment.amount) {
    return `amount ${event.amount} differs from the payment's ${payment.amount}`;
  }
  if (event.currency !== null && event.currency.toLowerCase() !== payment.currency) {
    return `currency ${event.currency} differs from the payment's ${payment.currency}`;
  }
  return null;
}

/** A customer back from the processor waits this long for its word; then the stored status decides. */
const RETURN_DEADLINE_MS = 5_000;
/** An event is checked with the processor within this; past it the intake answers 503 and the processor sends it again. */
const EVENT_DEADLINE_MS = 10_000;

/** The processor's answer to a check of an event; null when it has no such object. */
function answered<T>(outcome: CallOutcome<T>): T | null {
  if (outcome.kind === "ok") return outcome.value;
  if (outcome.kind === "refused" && outcome.missing) return null;
  // Unanswered, the event cannot be judged: the intake answers 503 and the processor retries.
  throw new ProcessorUnavailableError(outcome.error.message, {
    cause: outcome.error,
    outcome: outcome.kind === "unknown" ? outcome.reason : "connection",
  });
}

/**
 * What the processor tells us: its signed events, and its answer when a customer comes back.
 * The adapter has already turned each into a neutral action; this module finds the payment it
 * is about, checks it against what we stored, and applies it through the one write path.
 */
export class ProcessorEvents {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly writer: PaymentWriter,
    private readonly refunds: Refunds,
    private readonly disputes: Disputes,
    private readonly queries: PaymentQueries,
    private readonly config: ProcessorEventsConfig,
    private readonly log: Logger,
  ) {}

  /**
   * A verified processor event. Replays are acknowledged without effect. Finding the payment may
   * ask the processor; if it cannot answer, this throws so the processor retries the event.
   */
  async apply(adapter: ProcessorAdapter, event: ProcessorEvent): Promise<void> {
    const match = event.action ? await this.match(adapter, event) : { payment: undefined, mismatch: null };
    const payment = match.payment;
    if (event.action && !payment) {
      this.log.warn({ eventId: event.id, type: event.type }, "processor event for an unknown payment");
    }
    if (match.mismatch) {
      this.log.warn(
        { eventId: event.id, type: event.type, transactionId: payment?.id, mismatch: match.mismatch },
        "processor event refused: it does not match the payment it names; listed for reconciliation",
      );
    }
    await this.writer.inTransaction(async (tx, move) => {
      const fresh = await recordProcessorEvent(tx, {
        processor: adapter.name,
        id: event.id,
        type: event.type,
        paymentId: payment?.id ?? null,
        mismatch: match.mismatch,
      });
      if (!fresh || !event.action || !payment) return;
      if (match.mismatch) {
        await openReconciliationItem(tx, {
          paymentId: payment.id,
          kind: "processor_mismatch",
          detail: `${event.type}: ${match.mismatch}`,
          processorEventId: event.id,
        });
        return;
      }
      if (event.action.kind === "refund_settled") {
        await this.refunds.settleFromProcessor(tx, payment.id, event.action.refund);
        return;
      }
      if ("dispute" in event.action && event.action.dispute) {
        await this.disputes.recordFromProcessor(tx, payment, event.action.dispute);
      }
      if (event.action.kind === "dispute_updated") return;
      const reason = `processor_event:${event.id}`;
      await this.writer.applyFact(tx, move, payment.id, event.action, event.paymentRef, reason);
    });
  }

  /**
   * Where a customer coming back from the processor goes; null for an unknown token. The
   * processor's own word decides success, so the merchant's success page finds the payment paid.
   */
  async returnDestination(token: string): Promise<string | null> {
    let payment = await this.queries.byLinkToken(token);
    if (!payment) return null;
    const checkoutId = payment.processor_checkout_id;
    if (checkoutId && !PAID_STATUSES.has(payment.status)) {
      const adapter = this.processors.of(payment.processor);
      const answer = await callProcessor((signal) => adapter.lookUpCheckout(checkoutId, signal), {
        deadlineMs: RETURN_DEADLINE_MS,
      });
      if (answer.kind === "ok") {
        const checkout = answer.value;
        if (checkout.paid) {
          await this.writer.applyFactNow(
            payment.id,
            { kind: "paid" },
            checkout.paymentRef,
            "customer_return",
          );
          // Re-read: the processor's own event may have applied the payment before we did.
          payment = (await this.queries.byLinkToken(token)) ?? payment;
        }
      } else {
        // Without the processor's answer the stored status decides; the event will follow.
        this.log.warn(
          { reason: answer.error.message, transactionId: payment.id },
          "processor unavailable on customer return",
        );
      }
    }
    const target = PAID_STATUSES.has(payment.status) ? payment.success_url : payment.cancel_url;
    // An unusable merchant URL leads to FALLBACK_URL exactly, else to the service's own page
    // saying, in the merchant's name, whether the payment went through (docs/api.md, "The
    // customer's way through").
    return (
      reachableUrl(target, this.config.allowedPrivateHosts)?.href ??
      this.config.fallbackUrl ??
      `${payment.safe_site_url}/done/${token}`
    );
  }

  /**
   * The payment an event is about, and why it may not change it. An event may change a payment
   * only if it names that payment's own checkout or processor payment, as stored or as the
   * processor confirms, and its amount and currency match (docs/api.md, "Processor events"). Metadata only suggests a
   * candidate: anyone sharing the processor account can write it.
   */
  private async match(
    adapter: ProcessorAdapter,
    event: ProcessorEvent,
  ): Promise<{ payment: PaymentRow | undefined; mismatch: string | null }> {
    const name = adapter.name;
    const named =
      (event.checkoutId
        ? await findPaymentAtProcessor(this.db, name, "checkout", event.checkoutId)
        : undefined) ??
      (event.paymentRef
        ? await findPaymentAtProcessor(this.db, name, "payment", event.paymentRef)
        : undefined);
    if (named) return { payment: named, mismatch: amountMismatch(event, named) };

    const paymentRef = event.paymentRef;
    const hint =
      event.transactionIdHint ??
      (paymentRef
        ? answered(
            await callProcessor((signal) => adapter.transactionIdOf(paymentRef, signal), {
              deadlineMs: EVENT_DEADLINE_MS,
            }),
          )
        : null);
    const candidate = hint && UUID_PATTERN.test(hint) ? await findPaymentById(this.db, hint) : undefined;
    if (!candidate || candidate.processor !== name) return { payment: undefined, mismatch: null };
    if (event.checkoutId) {
      return { payment: candidate, mismatch: `checkout ${event.checkoutId} is not this payment's` };
    }
    // A refund, a dispute or a declined try can come before we stored the processor's payment:
    // the processor says whether it was tried through the checkout we opened for this payment.
    const checkoutId = candidate.processor_checkout_id;
    const tried =
      checkoutId && paymentRef
        ? (answered(
            await callProcessor((signal) => adapter.triedThrough(checkoutId, paymentRef, signal), {
              deadlineMs: EVENT_DEADLINE_MS,
            }),
          ) ?? false)
        : false;
    if (!tried) {
      const ref = paymentRef ?? "(none)";
      return { payment: candidate, mismatch: `processor payment ${ref} is not this payment's` };
    }
    return { payment: candidate, mismatch: amountMismatch(event, candidate) };
  }
}
