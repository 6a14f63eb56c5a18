import Stripe from "stripe";
import type { CheckoutSession, CheckoutSessionRequest, Processor } from "./processor.ts";
import { ProcessorError } from "./processor.ts";

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
    retrievePaymentIntent: (paymentIntentId) =>
      callProcessor("payment intent retrieve", async () => {
        const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
        return { id: intent.id, metadata: intent.metadata };
      }),
    verifyEvent: (rawBody, signatureHeader) =>
      stripe.webhooks.constructEvent(
        rawBody,
        signatureHeader,
        options.webhookSecret,
        SIGNATURE_TOLERANCE_SECONDS,
      ),
  };
}
