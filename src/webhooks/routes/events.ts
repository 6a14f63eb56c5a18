import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { ApiError, notFound } from "../../http/errors.ts";
import { UUID_PATTERN } from "../../payments/payment.ts";
import { findOwnPayment } from "../../payments/routes/get.ts";
import { errorResponses, merchantSecurity, paymentIdParamsSchema } from "../../payments/schemas.ts";
import type { Services } from "../../services.ts";
import { describeEvents, type EventRow } from "../log.ts";
import { destinationOf } from "../outbox.ts";

const MAX_PAGE = 500;

export default function webhookEventRoutes(app: FastifyInstance, services: Services) {
  const { db } = services;

  app.get<{ Params: { id: string } }>(
    "/api/v1/payments/:id/events",
    {
      schema: {
        summary: "List a payment's webhook events with their deliveries and attempts",
        tags: ["webhooks"],
        security: merchantSecurity,
        params: paymentIdParamsSchema,
        response: errorResponses,
      },
    },
    async (request) => {
      const payment = await findOwnPayment(services, request.merchant.groupId, request.params.id);
      const events = await db.query<EventRow>(
        "SELECT * FROM webhook_events WHERE payment_id = $1 ORDER BY created_at, id",
        [payment.id],
      );
      return { success: true, data: await describeEvents(db, events) };
    },
  );

  app.post<{ Params: { id: string; eventId: string } }>(
    "/api/v1/payments/:id/events/:eventId/resend",
    {
      config: { rateLimit: { max: 30, timeWindow: 60_000 } },
      schema: {
        summary: "Queue a fresh delivery of one event",
        description: "The new delivery gets its own webhook-id and timestamp; the original's log is kept.",
        tags: ["webhooks"],
        security: merchantSecurity,
        params: {
          type: "object",
          required: ["id", "eventId"],
          properties: { id: { type: "string" }, eventId: { type: "string" } },
        },
        response: { ...errorResponses, 409: { $ref: "ErrorResponse#" } },
      },
    },
    async (request, reply) => {
      const payment = await findOwnPayment(services, request.merchant.groupId, request.params.id);
      if (!UUID_PATTERN.test(request.params.eventId)) throw notFound("Event");
      if (!payment.webhook_url) {
        throw new ApiError("INVALID_REQUEST", "This payment has no deliverable webhookUrl");
      }
      const deliveryId = randomUUID();
      const inserted = await db.query(
        `INSERT INTO webhook_deliveries (id, event_id, url, destination, state)
         SELECT $1, id, $3, $4, 'pending' FROM webhook_events WHERE id = $2 AND payment_id = $5
         RETURNING id`,
        [
          deliveryId,
          request.params.eventId,
          payment.webhook_url,
          destinationOf(payment.webhook_url),
          payment.id,
        ],
      );
      if (inserted.length === 0) throw notFound("Event");
      services.outbox.wake();
      return reply.code(202).send({ success: true, data: { deliveryId, state: "pending" } });
    },
  );

  app.get<{ Querystring: { since?: string; limit?: string } }>(
    "/api/v1/events",
    {
      schema: {
        summary: "Catch up on events created at or after `since`, oldest first",
        description:
          "Page by passing the last event's createdAt as the next `since`; an event on the boundary may repeat, so de-duplicate on its id.",
        tags: ["webhooks"],
        security: merchantSecurity,
        querystring: {
          type: "object",
          required: ["since"],
          properties: {
            since: { type: "string", format: "date-time" },
            limit: { type: "string", pattern: "^[0-9]{1,3}$" },
          },
        },
        response: errorResponses,
      },
    },
    async (request) => {
      const limit = Math.min(Math.max(Number(request.query.limit ?? 100), 1), MAX_PAGE);
      const since = new Date(request.query.since as string);
      if (Number.isNaN(since.getTime()))
        throw new ApiError("INVALID_REQUEST", "since must be an ISO 8601 timestamp");
      const events = await db.query<EventRow>(
        "SELECT * FROM webhook_events WHERE group_id = $1 AND created_at >= $2 ORDER BY created_at, id LIMIT $3",
        [request.merchant.groupId, since, limit],
      );
      return { success: true, data: await describeEvents(db, events) };
    },
  );
}
