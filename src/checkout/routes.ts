import type { FastifyInstance } from "fastify";
import { sendPage } from "../http/html.ts";
import { reachableUrl } from "../net/unreachable-host.ts";
import type { PaymentRow } from "../payments/payment.ts";
import { applyProcessorFact } from "../processor/apply.ts";
import type { Services } from "../services.ts";

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,64}$/;
const LINK_OPEN_STATUSES = new Set(["processing", "failed", "cancelled"]);
const PAID_STATUSES = new Set([
  "succeeded",
  "refunded",
  "partially_refunded",
  "disputed",
  "dispute_won",
  "dispute_lost",
]);

async function paymentByToken(services: Services, token: string): Promise<PaymentRow | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const [row] = await services.db.query<PaymentRow>("SELECT * FROM payments WHERE link_token = $1", [token]);
  return row;
}

const notFoundPage =
  "<h1>Payment link not found</h1><p>Check the link you were given, or ask the merchant for a new one.</p>";

export default function checkoutRoutes(app: FastifyInstance, services: Services) {
  const { config, processor, db } = services;

  /** The hosted payment link: forwards to the processor's page while the link is open. */
  app.get<{ Params: { token: string } }>(
    "/pay/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const payment = await paymentByToken(services, request.params.token);
      if (!payment?.processor_checkout_url) return sendPage(reply, 404, "Not found", notFoundPage);
      if (PAID_STATUSES.has(payment.status)) {
        return sendPage(
          reply,
          410,
          "Already paid",
          "<h1>This payment is already complete</h1><p>Nothing more to pay.</p>",
        );
      }
      // A cancelled payment's link stays open until it expires (spec §3.2).
      if (payment.expires_at.getTime() <= Date.now() || !LINK_OPEN_STATUSES.has(payment.status)) {
        return sendPage(
          reply,
          410,
          "Link expired",
          "<h1>This payment link has expired</h1><p>Ask the merchant for a new one.</p>",
        );
      }
      reply.header("x-frame-options", "DENY").header("content-security-policy", "frame-ancestors 'none'");
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(payment.processor_checkout_url, 303);
    },
  );

  /**
   * Where the processor sends the customer back. The processor's own word decides success, not the
   * path the customer arrived by, so the merchant's success page always finds the payment succeeded.
   */
  app.get<{ Params: { token: string } }>(
    "/return/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      let payment = await paymentByToken(services, request.params.token);
      if (!payment) return sendPage(reply, 404, "Not found", notFoundPage);
      if (payment.processor_session_id && !PAID_STATUSES.has(payment.status)) {
        try {
          const session = await processor.retrieveCheckoutSession(payment.processor_session_id);
          if (session.paid) {
            const paymentId = payment.id;
            const outcome = await db.transaction((tx) =>
              applyProcessorFact(
                tx,
                paymentId,
                { kind: "paid", paymentIntentId: session.paymentIntentId },
                "customer_return",
              ),
            );
            if (outcome.changes.some((change) => change.queuedWebhook)) services.outbox.wake();
            // Re-read: the processor's own event may have applied the payment before we did.
            payment = (await paymentByToken(services, request.params.token)) ?? payment;
          }
        } catch (error) {
          // Without the processor's answer the stored status decides; the event will follow.
          request.log.warn(
            { err: error, transactionId: payment.id },
            "processor unavailable on customer return",
          );
        }
      }
      const target = PAID_STATUSES.has(payment.status) ? payment.success_url : payment.cancel_url;
      const destination = reachableUrl(target, config.allowedPrivateHosts)?.href ?? config.fallbackUrl;
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(destination, 303);
    },
  );
}
