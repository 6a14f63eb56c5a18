import Stripe from "stripe";
import {
  type Checkout,
  CheckoutNotFoundError,
  type CheckoutRequest,
  InvalidEventError,
  type ListedCheckout,
  moneyCallError,
  type ProcessorAdapter,
  type ProcessorLimits,
  type ProcessorRefund,
  type RefundReason,
} from "../port.ts";
import { ask, isMissing, outcomeOf, withoutCallSiteStack } from "./calls.ts";
import { stripeDisputeCalls } from "./dispute-calls.ts";
import { toProcessorDispute } from "./disputes.ts";
import { idOf, interpretStripeEvent, toProcessorRefund } from "./events.ts";
import { UndiciHttpClient } from "./undici-http-client.ts";

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
    listCheckouts: (window, signal) =>
      ask(
        "checkout list",
        async () => {
          const listed: ListedCheckout[] = [];
          const sessions = stripe.checkout.sessions.list({
            created: {
              gte: Math.floor(window.since.getTime() / 1000),
              lt: Math.ceil(window.until.getTime() / 1000),
            },
            limit: 100,
          });
          for await (const session of sessions) {
            listed.push({
              id: session.id,
              transactionIdHint: session.metadata?.transactionId ?? null,
              paid: session.payment_status === "paid",
              paymentRef: idOf(session.payment_intent),
              amount: session.amount_total ?? 0,
              currency: session.currency ?? "",
              createdAt: new Date(session.created * 1000),
            });
          }
          return listed;
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
    ...stripeDisputeCalls(stripe),
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
