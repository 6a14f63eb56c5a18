import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { errorResponses, merchantSecurity, successEnvelope, uuidParam } from "../../platform/http/schemas.ts";
import type { WebhookEvents } from "../../webhooks/module.ts";
import type { PaymentQueries } from "../queries/service.ts";
import { paymentParams } from "./get.ts";

/** A payment's webhook log and replay: the payment decides who may see it, webhooks keep the log. */
const paymentEventRoutes: FastifyPluginAsync<{
  queries: PaymentQueries;
  webhooks: WebhookEvents;
}> = async (scope, { queries, webhooks }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.get(
    "/api/v1/payments/:id/events",
    {
      schema: {
        summary: "List a payment's webhook events with their deliveries and attempts",
        tags: ["webhooks"],
        security: merchantSecurity,
        params: paymentParams,
        response: errorResponses,
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const payment = await queries.get(groupId, request.params.id);
      return { success: true, data: await webhooks.log.eventsOf(groupId, payment.id) };
    },
  );

  app.post(
    "/api/v1/payments/:id/events/:eventId/resend",
    {
      config: { rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        summary: "Queue a fresh delivery of one event",
        description:
          "The new delivery carries the event's own webhook-id (receivers de-duplicate on it) with a fresh webhook-timestamp and signature; the earlier deliveries' log is kept.",
        tags: ["webhooks"],
        security: merchantSecurity,
        params: {
          type: "object",
          required: ["id", "eventId"],
          properties: { id: uuidParam("Payment"), eventId: uuidParam("Event") },
        } as const,
        response: {
          202: successEnvelope({
            type: "object",
            required: ["deliveryId", "state"],
            properties: {
              deliveryId: { type: "string", format: "uuid" },
              state: { type: "string", const: "pending" },
            },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { groupId } = request.merchant;
      const payment = await queries.get(groupId, request.params.id);
      if (!payment.webhook_url) {
        throw new ApiError("INVALID_REQUEST", "This payment has no deliverable webhookUrl");
      }
      const delivery = await webhooks.replays.resend(
        { groupId, transactionId: payment.id, eventId: request.params.eventId },
        () => byApiKey(request, "webhook.resent", request.params.eventId, { transactionId: payment.id }),
      );
      return reply.code(202).send({ success: true as const, data: delivery });
    },
  );
};

export default paymentEventRoutes;
