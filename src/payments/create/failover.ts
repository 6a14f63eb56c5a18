import { DomainError } from "../../platform/errors/domain-error.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type CallOutcome, callProcessor } from "../../processor/call.ts";
import type { Checkout, CheckoutRequest, ProcessorAdapter } from "../../processor/port.ts";
import type { AbandonedCheckouts } from "./abandoned.ts";
import type { ProcessorBreakers } from "./breakers.ts";
import type { PassedOver } from "./store.ts";

/** A create answers within 15 s whatever the processors do (docs/api.md, failover). */
export const CREATE_DEADLINE_MS = 15_000;

export type FailoverOutcome =
  | { outcome: "opened"; processor: ProcessorAdapter; checkout: Checkout; passedOver: PassedOver[] }
  /** A definite refusal: nothing was opened, and no other processor is asked. */
  | { outcome: "refused"; processor: ProcessorAdapter; passedOver: PassedOver[] };

/** Told of what each create met at its processors (the metrics count it). */
export interface FailoverListener {
  /** `from` was passed over for `to` ("none": no processor was left). */
  passedOver(from: string, to: string, reason: PassedOver["reason"]): void;
  /** `processor` answered: it opened the checkout, or refused it. */
  answered(processor: string, outcome: FailoverOutcome["outcome"]): void;
}

/**
 * Opens a checkout at the first processor of a route that answers (docs/api.md): an unknown
 * outcome (timeout, lost connection, 5xx, 429) moves on to the next eligible processor within the
 * create's deadline, and the attempt is remembered so whatever it opened gets closed. A definite
 * refusal ends the create; a processor whose breaker is open is skipped.
 */
export class Failover {
  constructor(
    private readonly breakers: ProcessorBreakers,
    private readonly abandoned: AbandonedCheckouts,
    /** The longest any processor but the last is given, so the next can still answer in time. */
    private readonly attemptTimeoutMs: number,
    private readonly listener: FailoverListener,
    private readonly log: Logger,
    private readonly deadlineMs = CREATE_DEADLINE_MS,
  ) {}

  async open(
    groupId: string,
    route: readonly ProcessorAdapter[],
    request: CheckoutRequest,
  ): Promise<FailoverOutcome> {
    // Elapsed time, not the time of day: measured on the monotonic clock.
    const deadline = performance.now() + this.deadlineMs;
    const passedOver: PassedOver[] = [];
    const passOver = (index: number, reason: PassedOver["reason"]) => {
      const from = route[index]?.name as string;
      passedOver.push({ processor: from, reason });
      this.listener.passedOver(from, route[index + 1]?.name ?? "none", reason);
    };
    for (const [index, processor] of route.entries()) {
      if (!this.breakers.admit(processor.name)) {
        passOver(index, "breaker_open");
        continue;
      }
      const remaining = deadline - performance.now();
      // Nothing is asked once the create's time is up: a call given no time could only open a
      // checkout nobody hears of.
      if (remaining <= 0) {
        passOver(index, "timeout");
        continue;
      }
      const last = index === route.length - 1;
      // Past its time the call is stopped: whatever it may have opened is closed as abandoned.
      const attempt: CallOutcome<Checkout> = await callProcessor(
        (signal) => processor.createCheckout(request, signal),
        { deadlineMs: last ? remaining : Math.min(this.attemptTimeoutMs, remaining) },
      );
      if (attempt.kind === "ok") {
        this.breakers.answered(processor.name);
        this.listener.answered(processor.name, "opened");
        return { outcome: "opened", processor, checkout: attempt.value, passedOver };
      }
      if (attempt.kind === "refused") {
        this.breakers.answered(processor.name);
        this.listener.answered(processor.name, "refused");
        this.log.warn(
          {
            processor: processor.name,
            reason: attempt.error.message,
            transactionId: request.transactionId,
          },
          "processor refused the checkout",
        );
        return { outcome: "refused", processor, passedOver };
      }
      this.breakers.unknown(processor.name);
      await this.abandoned.remember(groupId, processor.name, request, attempt.reason);
      this.log.warn(
        {
          processor: processor.name,
          outcome: attempt.reason,
          reason: attempt.error.message,
          transactionId: request.transactionId,
        },
        "processor did not answer the checkout create: trying the next one of the route",
      );
      passOver(index, attempt.reason);
    }
    throw new DomainError("PROCESSOR_ERROR", "The payment processor could not create the checkout session");
  }
}
