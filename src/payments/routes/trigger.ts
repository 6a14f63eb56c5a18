import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { ApiError } from "../../platform/http/errors.ts";
import { errorResponses, merchantSecurity, successEnvelope } from "../../platform/http/schemas.ts";
import { WEBHOOK_EVENT_NAMES } from "../../webhooks/event-names.ts";
import type { PaymentCreation } from "../create/service.ts";
import type { Expiry } from "../expiry/service.ts";
import type { PaymentQueries } from "../queries/service.ts";

/** What the in-process sandbox processor can be asked to do to one of its checkouts. */
export interface SandboxSimulator {
  pay(sessionId: string, outcome: "succeeded" | "failed"): Promise<void>;
  refund(paymentIntentId: string): Promise<void>;
  dispute(paymentIntentId: string): Promise<void>;
}

/** Every event the service sends can be made on demand. */
export const TRIGGERABLE_EVENTS = WEBHOOK_EVENT_NAMES;

/** How long a refund or dispute trigger waits for the payment it made to be paid first. */
const PAID_WAIT_MS = 10_000;

/**
 * POST /api/v1/sandbox/trigger: `checkout trigger` makes the sandbox produce an event on a new
 * payment of the caller's group. Registered only while the sandbox is the processor.
 */
const triggerRoute: FastifyPluginAsync<{
  creation: PaymentCreation;
  queries: PaymentQueries;
  expiry: Expiry;
  simulator: SandboxSimulator;
  publicUrl: string;
}> = async (scope, { creation, queries, expiry, simulator, publicUrl }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  const paidIntent = async (groupId: string, transactionId: string): Promise<string> => {
    const deadline = Date.now() + PAID_WAIT_MS;
    while (Date.now() < deadline) {
      const payment = await queries.get(groupId, transactionId);
      if (payment.status === "succeeded" && payment.processor_payment_id) return payment.processor_payment_id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new ApiError("SERVICE_UNAVAILABLE", "The sandbox payment was not confirmed in time; try again");
  };

  app.post(
    "/api/v1/sandbox/trigger",
    {
      config: { rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        operationId: "triggerSandboxEvent",
        summary: "Make the sandbox produce an event on a new payment (sandbox only)",
        description:
          "Creates a payment of 19.99 USD for the group and drives it at the sandbox processor so that the " +
          "event follows, through the same path as a real one. Answers 404 unless the service runs with PROCESSOR=sandbox.",
        tags: ["sandbox"],
        security: merchantSecurity,
        body: {
          type: "object",
          required: ["event"],
          properties: { event: { type: "string", enum: [...TRIGGERABLE_EVENTS] } },
        },
        response: {
          202: successEnvelope({
            type: "object",
            required: ["transactionId", "event"],
            properties: {
              transactionId: { type: "string", format: "uuid" },
              event: { type: "string", enum: [...TRIGGERABLE_EVENTS] },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { groupId } = request.merchant;
      const { event } = request.body;
      const { result } = await creation.create(groupId, {
        amount: 1999,
        currency: "usd",
        customerEmail: "trigger@example.com",
        successUrl: `${publicUrl}/`,
        cancelUrl: `${publicUrl}/`,
        description: `checkout trigger ${event}`,
        metadata: { trigger: event },
      });
      const { transactionId, sessionId } = result;
      switch (event) {
        case "payment.completed":
          await simulator.pay(sessionId, "succeeded");
          break;
        case "payment.failed":
          await simulator.pay(sessionId, "failed");
          break;
        case "payment.expired":
          // As the sweep expires it at its time: the processor closes the checkout first.
          await expiry.expireNow(await queries.get(groupId, transactionId));
          break;
        case "payment.refunded":
          await simulator.pay(sessionId, "succeeded");
          await simulator.refund(await paidIntent(groupId, transactionId));
          break;
        case "payment.disputed":
          await simulator.pay(sessionId, "succeeded");
          await simulator.dispute(await paidIntent(groupId, transactionId));
          break;
      }
      return reply.code(202).send({ success: true as const, data: { transactionId, event } });
    },
  );
};

export default triggerRoute;
