import Stripe from "stripe";
import {
  type Checkout,
  CheckoutNotFoundError,
  type CheckoutRequest,
  InvalidEventError,
  moneyCallError,
  outcomeOfStatus,
  type ProcessorAdapter,
  type ProcessorDispute,
  type ProcessorLimits,
  type ProcessorRefund,
  ProcessorUnavailableError,
  type RefundReason,
  type UnknownOutcome,
} from "../port.ts";
import { stripeEvidenceOf, toProcessorDispute } from "./disputes.ts";
import { idOf, interpretStripeEvent, toProcessorRefund } from "./events.ts";
import { requestSignal, UndiciHttpClient } from "./undici-http-client.ts";

export interface StripeAdapterOptions {
  secretKey: string;
  webhookSecret: string;
  /** Any Stripe-compatible endpoint (the sandbox, a mock); unset means api.stripe.com. */
  apiUrl?: string | undefined;
  timeoutMs?: number;
}

// Stripe rejects events signed more than this long ago, guarding against replays of old captures.
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Stripe's: a checkout session lives 30 minutes to 24 hours; a key is kept 24 hours (23, to be safe). */
export const STRIPE_LIMITS: ProcessorLimits = {
  checkoutLifetimeSeconds: { min: 1800, max: 86400 },
  idempotencyKeyLifetimeMs: 23 * 60 * 60 * 1000,
};

/** Our refund reasons are Stripe's own three. */
const STRIPE_REFUND_REASON: Record<RefundReason, Stripe.RefundCreateParams.Reason> = {
  requested_by_customer: "requested_by_customer",
  duplicate: "duplicate",
  fraudulent: "fraudulent",
};

function toCheckout(session: Stripe.Checkout.Session): Checkout {
  return {
    id: session.id,
    url: session.url ?? "",
    status: session.status === "complete" ? "finished" : session.status === "expired" ? "expired" : "open",
    paid: session.payment_status === "paid",
    paymentRef: idOf(session.payment_intent),
  };
}

/** Stripe's "no such object": 404 resource_missing. */
const isMissing = (error: unknown): boolean =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404;

/** A definite refusal, or why a Stripe call's outcome is unknown. */
function outcomeOf(error: unknown): "refused" | UnknownOutcome {
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return (error.detail as { code?: string } | undefined)?.code === Stripe.HttpClient.TIMEOUT_ERROR_CODE
      ? "timeout"
      : "connection";
  }
  if (!(error instanceof Stripe.errors.StripeError)) return "connection";
  return outcomeOfStatus(error.statusCode);
}

/**
 * Starts an SDK call with no stack frames to capture. The SDK records its caller's stack on every
 * request, formatted at once, only to append it to its own errors; that was 5 % of a create's CPU.
 * Our errors carry the SDK's as their cause, and our own stack is taken outside this window.
 */
function withoutCallSiteStack<T>(call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // The signal reaches every request of the call, retries included, through the HTTP client.
    return signal ? requestSignal.run(signal, call) : call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Any failure to talk to the processor, as the neutral unavailable error. */
async function ask<T>(what: string, call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await withoutCallSiteStack(call, signal);
  } catch (error) {
    if (error instanceof CheckoutNotFoundError) throw error;
    const outcome = outcomeOf(error);
    throw new ProcessorUnavailableError(`processor ${what} failed: ${(error as Error).message}`, {
      cause: error,
      outcome: outcome === "refused" ? "connection" : outcome,
    });
  }
}

export function stripeAdapter(options: StripeAdapterOptions): ProcessorAdapter {
  const endpoint = options.apiUrl ? new URL(options.apiUrl) : undefined;
  const timeout = options.timeoutMs ?? 20000;
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: 2,
    timeout,
    telemetry: false,
    httpClient: new UndiciHttpClient(timeout),
    ...(endpoint && {
      host: endpoint.hostname,
      port: endpoint.port || (endpoint.protocol === "https:" ? 443 : 80),
      protocol: endpoint.protocol === "https:" ? "https" : "http",
    }),
  });

  // The SDK builds its X-Stripe-Client-User-Agent header anew for every request, URI-encoding each
  // field and stringifying them: 2.3 % of a create's CPU in perf. Its parts (the SDK's version, the
  // platform, the HTTP client) are fixed once the client exists, so the first answer is kept.
  stripe.getClientUserAgent((userAgent) => {
    stripe.getClientUserAgent = (callback) => callback(userAgent);
  });

  const retrieveCheckout = async (checkoutId: string) => {
    try {
      return toCheckout(await stripe.checkout.sessions.retrieve(checkoutId));
    } catch (error) {
      if (isMissing(error)) throw new CheckoutNotFoundError(`checkout ${checkoutId} does not exist`);
      throw error;
    }
  };

  return {
    name: "stripe",
    limits: STRIPE_LIMITS,
    // Stripe takes every currency the service does.
    takes: () => true,
    async createCheckout(request: CheckoutRequest, signal): Promise<Checkout> {
      try {
        const session = await withoutCallSiteStack(
          () =>
            stripe.checkout.sessions.create(
              {
                mode: "payment",
                line_items: [
                  {
                    quantity: 1,
                    price_data: {
                      currency: request.currency,
                      unit_amount: request.amount,
                      product_data: { name: request.lineItemName },
                    },
                  },
                ],
                customer_email: request.customerEmail,
                expires_at: Math.floor(request.expiresAt.getTime() / 1000),
                success_url: request.returnUrl,
                cancel_url: request.returnUrl,
                // Only our id: the merchant's URLs, metadata and webhook never reach the processor.
                metadata: { transactionId: request.transactionId },
                payment_intent_data: { metadata: { transactionId: request.transactionId } },
              },
              { idempotencyKey: request.idempotencyKey },
            ),
          signal,
        );
        return toCheckout(session);
      } catch (error) {
        throw moneyCallError("checkout create", error, outcomeOf(error));
      }
    },
    lookUpCheckout: (checkoutId, signal) =>
      ask("checkout retrieve", () => retrieveCheckout(checkoutId), signal),
    // A session keeps one payment intent for every try, declined ones included.
    triedThrough: (checkoutId, paymentRef, signal) =>
      ask(
        "checkout retrieve",
        async () => {
          try {
            return (await retrieveCheckout(checkoutId)).paymentRef === paymentRef;
          } catch (error) {
            if (error instanceof CheckoutNotFoundError) return false;
            throw error;
          }
        },
        signal,
      ),
    expireCheckout: (checkoutId, signal) =>
      ask(
        "checkout expire",
        async () => {
          try {
            return toCheckout(await stripe.checkout.sessions.expire(checkoutId));
          } catch (error) {
            if (isMissing(error)) throw new CheckoutNotFoundError(`checkout ${checkoutId} does not exist`);
            // Stripe refuses to expire a session that is no longer open; report its real state instead.
            if (error instanceof Stripe.errors.StripeInvalidRequestError) return retrieveCheckout(checkoutId);
            throw error;
          }
        },
        signal,
      ),
    lookUpPayment: (paymentRef, signal) =>
      ask(
        "payment look-up",
        async () => {
          let intent: Stripe.PaymentIntent;
          try {
            intent = await stripe.paymentIntents.retrieve(paymentRef);
          } catch (error) {
            if (isMissing(error)) return null;
            throw error;
          }
          const chargeId = idOf(intent.latest_charge);
          const [charge, refunds, disputes] = await Promise.all([
            chargeId ? stripe.charges.retrieve(chargeId) : null,
            stripe.refunds.list({ payment_intent: paymentRef, limit: 100 }),
            stripe.disputes.list({ payment_intent: paymentRef, limit: 100 }),
          ]);
          return {
            ref: intent.id,
            amount: intent.amount,
            currency: intent.currency,
            amountRefunded: charge?.amount_refunded ?? 0,
            refunds: refunds.data.map(toProcessorRefund),
            disputes: disputes.data.map(toProcessorDispute),
          };
        },
        signal,
      ),
    transactionIdOf: (paymentRef, signal) =>
      ask(
        "payment retrieve",
        async () => {
          try {
            const intent = await stripe.paymentIntents.retrieve(paymentRef);
            return intent.metadata.transactionId ?? null;
          } catch (error) {
            if (isMissing(error)) return null;
            throw error;
          }
        },
        signal,
      ),
    async refund(request, signal): Promise<ProcessorRefund> {
      try {
        return toProcessorRefund(
          await withoutCallSiteStack(
            () =>
              stripe.refunds.create(
                {
                  payment_intent: request.paymentRef,
                  amount: request.amount,
                  ...(request.reason && { reason: STRIPE_REFUND_REASON[request.reason] }),
                  metadata: { refundId: request.refundId, transactionId: request.transactionId },
                },
                { idempotencyKey: request.idempotencyKey },
              ),
            signal,
          ),
        );
      } catch (error) {
        throw moneyCallError("refund", error, outcomeOf(error));
      }
    },
    lookUpRefund: (processorRefundId, signal) =>
      ask(
        "refund retrieve",
        async () => {
          try {
            return toProcessorRefund(await stripe.refunds.retrieve(processorRefundId));
          } catch (error) {
            if (isMissing(error)) return null;
            throw error;
          }
        },
        signal,
      ),
    lookUpDispute: (disputeRef, signal) =>
      ask(
        "dispute retrieve",
        async () => {
          try {
            return toProcessorDispute(await stripe.disputes.retrieve(disputeRef));
          } catch (error) {
            if (isMissing(error)) return null;
            throw error;
          }
        },
        signal,
      ),
    async sendDisputeEvidence(request, signal): Promise<ProcessorDispute> {
      const evidence = stripeEvidenceOf(request.evidence);
      try {
        return toProcessorDispute(
          await withoutCallSiteStack(
            () =>
              stripe.disputes.update(
                request.disputeRef,
                { evidence, submit: request.submit },
                { idempotencyKey: request.idempotencyKey },
              ),
            signal,
          ),
        );
      } catch (error) {
        throw moneyCallError("dispute evidence", error, outcomeOf(error));
      }
    },
    async acceptDispute(disputeRef, signal): Promise<ProcessorDispute> {
      try {
        const dispute = await withoutCallSiteStack(() => stripe.disputes.close(disputeRef), signal);
        // Stripe says a conceded dispute is lost; the merchant gave it up.
        return { ...toProcessorDispute(dispute), status: "accepted" };
      } catch (error) {
        throw moneyCallError("dispute acceptance", error, outcomeOf(error));
      }
    },
    parseEvent: (rawBody, headers) => {
      const signature = headers["stripe-signature"];
      if (typeof signature !== "string") throw new InvalidEventError("missing Stripe-Signature header");
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          options.webhookSecret,
          SIGNATURE_TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new InvalidEventError((error as Error).message, { cause: error });
      }
      return { id: event.id, type: event.type, ...interpretStripeEvent(event) };
    },
  };
}
