import { randomUUID } from "node:crypto";
import {
  type Checkout,
  CheckoutError,
  type WebhookPayload,
  WebhookVerificationError,
} from "@checkout-service/client";
import formbody from "@fastify/formbody";
import Fastify, { type FastifyInstance } from "fastify";

export interface ShopOptions {
  checkout: Checkout;
  /** The group's webhook secret (whsec_…), or the one `checkout listen --print-secret` prints. */
  webhookSecret: string;
  /** Where customers and webhooks reach this shop, e.g. http://localhost:4242 */
  publicUrl: () => string;
  /** Send webhooks straight here (false when `checkout listen` forwards them). */
  sendWebhookUrl: boolean;
}

export interface Order {
  orderId: string;
  transactionId: string;
  status: "awaiting_payment" | "paid" | "failed" | "refunded";
  /** How many distinct webhooks changed this order: each webhook-id counts once. */
  webhooksApplied: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mug shop</title></head><body>${body}</body></html>`;

/** A one-product shop: a buy button, a success page, and a webhook endpoint. */
export function buildShop(options: ShopOptions): FastifyInstance {
  const { checkout } = options;
  const app = Fastify({ logger: false });
  // A real shop keeps these in its database; a Map shows the idea.
  const orders = new Map<string, Order>();
  const seenWebhookIds = new Set<string>();

  app.register(formbody);
  // The signature covers the exact bytes sent: keep the body as text, parse after verifying.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) =>
    done(null, body),
  );

  app.get("/", async (_request, reply) =>
    reply.type("text/html").send(
      page(`<h1>Blue mug</h1><p>19.99 USD</p>
<form method="post" action="/buy"><label>Email <input name="email" type="email" required></label>
<button type="submit">Buy</button></form>`),
    ),
  );

  app.post<{ Body: { email?: string } }>("/buy", async (request, reply) => {
    const orderId = randomUUID();
    const shop = options.publicUrl();
    // The order id is the Idempotency-Key: a double click or a retry creates one payment, not two.
    const payment = await checkout.payments.create(
      {
        amount: 1999,
        currency: "usd",
        customerEmail: request.body.email ?? "customer@example.com",
        description: "Blue mug",
        successUrl: `${shop}/success/{transactionId}`,
        cancelUrl: `${shop}/`,
        ...(options.sendWebhookUrl && { webhookUrl: `${shop}/webhooks` }),
        metadata: { orderId },
      },
      { idempotencyKey: orderId },
    );
    orders.set(payment.transactionId, {
      orderId,
      transactionId: payment.transactionId,
      status: "awaiting_payment",
      webhooksApplied: 0,
    });
    return reply.redirect(payment.paymentUrl, 303);
  });

  // The customer lands here after paying. The URL proves nothing: read the payment.
  app.get<{ Params: { transactionId: string } }>("/success/:transactionId", async (request, reply) => {
    try {
      const payment = await checkout.payments.get(request.params.transactionId);
      const paid = payment.status === "succeeded";
      return reply
        .type("text/html")
        .send(
          page(
            paid
              ? `<h1>Thank you!</h1><p id="status">Paid ${(payment.amount / 100).toFixed(2)} ${escapeHtml(payment.currency.toUpperCase())}.</p>`
              : `<h1>Almost there</h1><p id="status">Payment ${escapeHtml(payment.status)}; this page updates when it is paid.</p>`,
          ),
        );
    } catch (error) {
      if (error instanceof CheckoutError && error.status === 404)
        return reply.code(404).send("No such order");
      throw error;
    }
  });

  app.post("/webhooks", async (request, reply) => {
    let event: WebhookPayload;
    try {
      event = checkout.webhooks.verify(
        request.body as string,
        request.headers as Record<string, string>,
        options.webhookSecret,
      );
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply.code(400).send({ error: "bad signature" });
      throw error;
    }
    // Retries and resends repeat the webhook-id: apply each event once.
    const webhookId = String(request.headers["webhook-id"]);
    if (seenWebhookIds.has(webhookId)) return reply.code(200).send({ duplicate: true });
    seenWebhookIds.add(webhookId);
    const order = orders.get(event.transactionId);
    if (order) {
      order.webhooksApplied += 1;
      if (event.event === "payment.completed") order.status = "paid";
      else if (event.event === "payment.failed" || event.event === "payment.expired") order.status = "failed";
      else if (event.event === "payment.refunded") order.status = "refunded";
    }
    return reply.code(200).send({ received: true });
  });

  app.get("/orders", async () => [...orders.values()]);
  return app;
}
