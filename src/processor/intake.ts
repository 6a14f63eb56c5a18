import type { FastifyInstance } from "fastify";
import type Stripe from "stripe";
import { ApiError } from "../http/errors.ts";
import { UUID_PATTERN } from "../payments/payment.ts";
import type { Services } from "../services.ts";
import { applyProcessorFact, type ProcessorFact } from "./apply.ts";

interface EventTarget {
  transactionId: string | undefined;
  paymentIntentId: string | null;
  sessionId: string | null;
  fact: ProcessorFact;
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === "string" ? value : (value?.id ?? null);

/** Maps the Stripe events we act on; anything else is acknowledged and ignored. */
function interpret(event: Stripe.Event): EventTarget | null {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      if (session.payment_status !== "paid") return null; // async methods settle later
      const paymentIntentId = idOf(session.payment_intent);
      return {
        transactionId: session.metadata?.transactionId,
        paymentIntentId,
        sessionId: session.id,
        fact: { kind: "paid", paymentIntentId },
      };
    }
    case "checkout.session.async_payment_failed": {
      const session = event.data.object;
      return {
        transactionId: session.metadata?.transactionId,
        paymentIntentId: idOf(session.payment_intent),
        sessionId: session.id,
        fact: { kind: "failed" },
      };
    }
    case "checkout.session.expired": {
      const session = event.data.object;
      return {
        transactionId: session.metadata?.transactionId,
        paymentIntentId: null,
        sessionId: session.id,
        fact: { kind: "expired" },
      };
    }
    case "payment_intent.payment_failed": {
      const intent = event.data.object;
      return {
        transactionId: intent.metadata?.transactionId,
        paymentIntentId: intent.id,
        sessionId: null,
        fact: { kind: "failed" },
      };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const paymentIntentId = idOf(charge.payment_intent);
      return {
        transactionId: charge.metadata?.transactionId,
        paymentIntentId,
        sessionId: null,
        fact: { kind: "refunded", paymentIntentId, amountRefunded: charge.amount_refunded },
      };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      const paymentIntentId = idOf(dispute.payment_intent);
      if (event.type === "charge.dispute.created") {
        return {
          transactionId: undefined,
          paymentIntentId,
          sessionId: null,
          fact: { kind: "disputed", paymentIntentId },
        };
      }
      if (dispute.status !== "won" && dispute.status !== "lost") return null;
      return {
        transactionId: undefined,
        paymentIntentId,
        sessionId: null,
        fact: { kind: "dispute_closed", paymentIntentId, outcome: dispute.status === "won" ? "won" : "lost" },
      };
    }
    default:
      return null;
  }
}

async function findPaymentId(services: Services, target: EventTarget): Promise<string | null> {
  // Each key on its own indexed lookup, most specific first (an OR across them would scan).
  const lookups: [string, string | null][] = [
    [
      "id = $1::uuid",
      target.transactionId && UUID_PATTERN.test(target.transactionId) ? target.transactionId : null,
    ],
    ["processor_session_id = $1", target.sessionId],
    ["processor_payment_intent_id = $1", target.paymentIntentId],
  ];
  let row: { id: string } | undefined;
  for (const [condition, value] of lookups) {
    if (value === null || row) continue;
    [row] = await services.db.query<{ id: string }>(`SELECT id FROM payments WHERE ${condition} LIMIT 1`, [
      value,
    ]);
  }
  if (row) return row.id;
  // A dispute can be the first we hear of a payment intent: its metadata names the payment.
  if (target.paymentIntentId) {
    const intent = await services.processor.retrievePaymentIntent(target.paymentIntentId).catch(() => null);
    const transactionId = intent?.metadata.transactionId;
    if (transactionId) return findPaymentId(services, { ...target, transactionId, paymentIntentId: null });
  }
  return null;
}

export default function processorIntakeRoute(app: FastifyInstance, services: Services) {
  // The signature covers the exact bytes received, so the body must reach us unparsed.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );
  app.post<{ Body: Buffer }>(
    "/processor/webhooks/stripe",
    { schema: { hide: true }, bodyLimit: 512 * 1024 },
    async (request) => {
      const signature = request.headers["stripe-signature"];
      if (typeof signature !== "string" || !Buffer.isBuffer(request.body)) {
        throw new ApiError("INVALID_REQUEST", "Missing Stripe-Signature header or body");
      }
      let event: Stripe.Event;
      try {
        event = services.processor.verifyEvent(request.body, signature);
      } catch (error) {
        request.log.warn({ reason: (error as Error).message }, "processor event rejected");
        throw new ApiError("INVALID_REQUEST", "Invalid processor event signature");
      }
      const target = interpret(event);
      const paymentId = target ? await findPaymentId(services, target) : null;
      if (target && !paymentId)
        request.log.warn({ eventId: event.id, type: event.type }, "processor event for an unknown payment");
      const outcome = await services.db.transaction(async (tx) => {
        const fresh = await tx.query(
          "INSERT INTO processor_events (id, type, payment_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id",
          [event.id, event.type, paymentId],
        );
        if (fresh.length === 0 || !target || !paymentId) return null;
        return applyProcessorFact(tx, paymentId, target.fact, `processor_event:${event.id}`);
      });
      if (outcome?.changes.some((change) => change.queuedWebhook)) services.outbox.wake();
      if (outcome?.flaggedForReconciliation) {
        request.log.warn(
          { paymentId, eventId: event.id },
          "payment needs reconciliation: money moved after cancel/expiry",
        );
      }
      return { received: true };
    },
  );
}
