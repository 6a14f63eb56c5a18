import type { FastifyPluginAsync } from "fastify";
import type { Database } from "../../db/database.ts";
import { ApiError } from "../../http/errors.ts";
import { errorResponses, merchantSecurity, UUID_PATTERN } from "../../http/schemas.ts";
import { EventFollower, eventBody } from "../stream.ts";

/** How often a stream looks for new events: events of every instance, with or without a URL. */
const POLL_MS = 500;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** Open streams per group on one instance: each one polls the database. */
export const MAX_STREAMS_PER_GROUP = 10;

/** GET /api/v1/events/stream: the group's events as Server-Sent Events, resumable. */
const eventStreamRoute: FastifyPluginAsync<{ db: Database }> = async (app, { db }) => {
  const open = new Map<string, number>();
  const closers = new Set<() => void>();
  // An open stream would otherwise hold the listener's close until the client hangs up.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    for (const close of [...closers]) close();
  });

  app.get(
    "/api/v1/events/stream",
    {
      schema: {
        operationId: "streamEvents",
        summary: "Follow the group's events as Server-Sent Events",
        description:
          "Each message has `id:` the eventId (the webhook-id), `event:` the event name and `data:` the webhook body. " +
          "Send `Last-Event-ID` to resume just after that event; without it the stream starts now.",
        tags: ["webhooks"],
        security: merchantSecurity,
        headers: {
          type: "object",
          properties: {
            "last-event-id": { type: "string", description: "The id of the last event received" },
          },
        },
        response: {
          200: {
            description: "A stream of events that stays open",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { groupId } = request.merchant;
      const lastEventId = request.headers["last-event-id"];
      if (lastEventId !== undefined && (typeof lastEventId !== "string" || !UUID_PATTERN.test(lastEventId))) {
        throw new ApiError("INVALID_REQUEST", "Last-Event-ID must be the id of an event of this group");
      }
      if ((open.get(groupId) ?? 0) >= MAX_STREAMS_PER_GROUP) {
        throw new ApiError("RATE_LIMIT_EXCEEDED", `At most ${MAX_STREAMS_PER_GROUP} open streams per group`);
      }
      const follower = await EventFollower.open(db, groupId, lastEventId);
      if (!follower) throw new ApiError("INVALID_REQUEST", "Last-Event-ID is not an event of this group");

      open.set(groupId, (open.get(groupId) ?? 0) + 1);
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
        "x-request-id": request.id,
        // The socket goes with the stream: an ended stream must not hold a shutdown as an idle keep-alive.
        connection: "close",
      });
      out.write("retry: 2000\n\n");

      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      let lastWrite = Date.now();
      const close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        closers.delete(shut);
        const left = (open.get(groupId) ?? 1) - 1;
        if (left > 0) open.set(groupId, left);
        else open.delete(groupId);
        out.end();
      };
      // At shutdown the socket goes at once; the client resumes elsewhere with Last-Event-ID.
      const shut = () => {
        close();
        out.destroy();
      };
      closers.add(shut);
      if (closing) return shut();
      out.on("close", close);
      out.on("error", close);

      const tick = async () => {
        try {
          const events = await follower.next();
          if (closed) return;
          for (const event of events) {
            out.write(
              `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(eventBody(event))}\n\n`,
            );
          }
          if (events.length > 0) lastWrite = Date.now();
          else if (Date.now() - lastWrite >= KEEPALIVE_MS) {
            out.write(": keepalive\n\n");
            lastWrite = Date.now();
          }
        } catch (error) {
          // The client reconnects with Last-Event-ID and misses nothing.
          request.log.warn({ err: error }, "event stream stopped");
          close();
          return;
        }
        if (!closed) timer = setTimeout(() => void tick(), POLL_MS);
      };
      await tick();
    },
  );
};

export default eventStreamRoute;
