import Stripe from "stripe";
import {
  type CheckoutSession,
  type CheckoutSessionRequest,
  InvalidEventError,
  type Processor,
  ProcessorError,
  type ProcessorEvent,
} from "./processor.ts";

export interface StripeProcessorOptions {
  secretKey: string;
  webhookSecret: string;
  /** Any Stripe-compatible endpoint (the sandbox, a mock); unset means api.stripe.com. */
  apiUrl?: string | undefined;
  timeoutMs?: number;
}

// Stripe rejects events signed more than this long ago, guarding against replays of old captures.
const SIGNATURE_TOLERANCE_SECONDS = 300;

function toCheckoutSession(session: Stripe.Checkout.Session): CheckoutSession {
  const paymentIntent = session.payment_intent;
  return {
    id: session.id,
    url: session.url ?? "",
    status: session.status === "complete" ? "complete" : session.status === "expired" ? "expired" : "open",
    paid: session.payment_status === "paid",
    paymentIntentId: typeof paymentIntent === "string" ? paymentIntent : (paymentIntent?.id ?? null),
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);

type EventFields = Omit<ProcessorEvent, "id" | "type">;

/** Stripe's events mapped to neutral facts; events we do not act on carry no fact. */
export function interpretStripeEvent(event: Stripe.Event): EventFields {
  const none: EventFields = {
    fact: null,
    sessionId: null,
    paymentIntentId: null,
    transactionIdHint: null,
    amount: null,
    currency: null,
  };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired": {
      const session = event.data.object;
      const fields = {
        sessionId: session.id,
        paymentIntentId: event.type === "checkout.session.expired" ? null : idOf(session.payment_intent),
        transactionIdHint: session.metadata?.transactionId ?? null,
        amount: session.amount_total ?? null,
        currency: session.currency ?? null,
      };
      if (event.type === "checkout.session.expired") return { ...fields, fact: { kind: "expired" } };
      if (event.type === "checkout.session.async_payment_failed")
        return { ...fields, fact: { kind: "failed" } };
      // Async payment methods complete the session unpaid and settle later.
      return { ...fields, fact: session.payment_status === "paid" ? { kind: "paid" } : null };
    }
    case "payment_intent.payment_failed": {
      const intent = event.data.object;
      return {
        ...none,
        fact: { kind: "failed" },
        paymentIntentId: intent.id,
        transactionIdHint: intent.metadata?.transactionId ?? null,
        amount: intent.amount ?? null,
        currency: intent.currency ?? null,
      };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      return {
        ...none,
        fact: { kind: "refunded", amountRefunded: charge.amount_refunded },
        paymentIntentId: idOf(charge.payment_intent),
        transactionIdHint: charge.metadata?.transactionId ?? null,
        amount: charge.amount ?? null,
        currency: charge.currency ?? null,
      };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      const fields = {
        ...none,
        paymentIntentId: idOf(dispute.payment_intent),
        currency: dispute.currency ?? null,
      };
      if (event.type === "charge.dispute.created") return { ...fields, fact: { kind: "disputed" } };
      if (dispute.status !== "won" && dispute.status !== "lost") return fields;
      return {
        ...fields,
        fact: { kind: "dispute_closed", outcome: dispute.status === "won" ? "won" : "lost" },
      };
    }
    default:
      return none;
  }
}

async function callProcessor<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new ProcessorError(`processor ${what} failed: ${(error as Error).message}`, { cause: error });
  }
}

export function stripeProcessor(options: StripeProcessorOptions): Processor {
  const endpoint = options.apiUrl ? new URL(options.apiUrl) : undefined;
  const stripe = new Stripe(options.secretKey, {
    maxNetworkRetries: 2,
    timeout: options.timeoutMs ?? 20000,
    ...(endpoint && {
      host: endpoint.hostname,
      port: endpoint.port || (endpoint.protocol === "https:" ? 443 : 80),
      protocol: endpoint.protocol === "https:" ? "https" : "http",
    }),
  });
  return {
    createCheckoutSession: (request: CheckoutSessionRequest) =>
      callProcessor("session create", async () =>
        toCheckoutSession(
          await stripe.checkout.sessions.create(
            {
              mode: "payment",
              line_items: [
                {
                  quantity: 1,
                  price_data: {
                    currency: request.currency,
                    unit_amount: request.amount,
                    product_data: { name: "Payment" },
                  },
                },
              ],
              customer_email: request.customerEmail,
              expires_at: Math.floor(request.expiresAt.getTime() / 1000),
              success_url: request.successUrl,
              cancel_url: request.cancelUrl,
              // Only our id: the merchant's URLs, metadata and webhook never reach the processor.
              metadata: { transactionId: request.transactionId },
              payment_intent_data: { metadata: { transactionId: request.transactionId } },
            },
            { idempotencyKey: request.idempotencyKey },
          ),
        ),
      ),
    retrieveCheckoutSession: (sessionId) =>
      callProcessor("session retrieve", async () =>
        toCheckoutSession(await stripe.checkout.sessions.retrieve(sessionId)),
      ),
    expireCheckoutSession: (sessionId) =>
      callProcessor("session expire", async () => {
        try {
          return toCheckoutSession(await stripe.checkout.sessions.expire(sessionId));
        } catch (error) {
          // Stripe refuses to expire a session that is no longer open; report its real state instead.
          if (error instanceof Stripe.errors.StripeInvalidRequestError) {
            return toCheckoutSession(await stripe.checkout.sessions.retrieve(sessionId));
          }
          throw error;
        }
      }),
    createRefund: (request) =>
      callProcessor("refund", async () => {
        const refund = await stripe.refunds.create(
          {
            payment_intent: request.paymentIntentId,
            amount: request.amount,
            ...(request.reason && { reason: request.reason }),
          },
          { idempotencyKey: request.idempotencyKey },
        );
        const status =
          refund.status === "succeeded" ? "succeeded" : refund.status === "failed" ? "failed" : "pending";
        return { id: refund.id, status };
      }),
    transactionIdOfPaymentIntent: (paymentIntentId) =>
      callProcessor("payment intent retrieve", async () => {
        try {
          const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
          return intent.metadata.transactionId ?? null;
        } catch (error) {
          if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)
            return null;
          throw error;
        }
      }),
    parseEvent: (rawBody, signatureHeader) => {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signatureHeader,
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
