import { DomainError } from "../../platform/errors/domain-error.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import {
  type Checkout,
  type CheckoutRequest,
  type ProcessorAdapter,
  ProcessorRefusedError,
  ProcessorUnavailableError,
  type UnknownOutcome,
} from "../../processor/port.ts";
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

/** What the processor said, or that it said nothing in time. */
type Attempt = { checkout: Checkout } | { refused: Error } | { unknown: UnknownOutcome; error: Error };

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
    const deadline = Date.now() + this.deadlineMs;
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
      const remaining = deadline - Date.now();
      // Nothing is asked once the create's time is up: a call given no time could only open a
      // checkout nobody hears of.
      if (remaining <= 0) {
        passOver(index, "timeout");
        continue;
      }
      const last = index === route.length - 1;
      const attempt = await this.attempt(
        processor,
        request,
        last ? remaining : Math.min(this.attemptTimeoutMs, remaining),
      );
      if ("checkout" in attempt) {
        this.breakers.answered(processor.name);
        this.listener.answered(processor.name, "opened");
        return { outcome: "opened", processor, checkout: attempt.checkout, passedOver };
      }
      if ("refused" in attempt) {
        this.breakers.answered(processor.name);
        this.listener.answered(processor.name, "refused");
        this.log.warn(
          {
            processor: processor.name,
            reason: attempt.refused.message,
            transactionId: request.transactionId,
          },
          "processor refused the checkout",
        );
        return { outcome: "refused", processor, passedOver };
      }
      this.breakers.unknown(processor.name);
      await this.abandoned.remember(groupId, processor.name, request, attempt.unknown);
      this.log.warn(
        {
          processor: processor.name,
          outcome: attempt.unknown,
          reason: attempt.error.message,
          transactionId: request.transactionId,
        },
        "processor did not answer the checkout create: trying the next one of the route",
      );
      passOver(index, attempt.unknown);
    }
    throw new DomainError("PROCESSOR_ERROR", "The payment processor could not create the checkout session");
  }

  private async attempt(
    processor: ProcessorAdapter,
    request: CheckoutRequest,
    timeoutMs: number,
  ): Promise<Attempt> {
    let timer: NodeJS.Timeout | undefined;
    const call = processor.createCheckout(request);
    // Past the timeout the call goes on unheard; whatever it opened is closed as abandoned.
    call.catch(() => {});
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), Math.max(0, timeoutMs));
    });
    try {
      const answer = await Promise.race([call, timedOut]);
      if (answer === "timeout") {
        return { unknown: "timeout", error: new Error(`no answer within ${timeoutMs} ms`) };
      }
      return { checkout: answer };
    } catch (error) {
      if (error instanceof ProcessorRefusedError) return { refused: error };
      if (error instanceof ProcessorUnavailableError) return { unknown: error.outcome, error };
      return { unknown: "connection", error: error as Error };
    } finally {
      clearTimeout(timer);
    }
  }
}
