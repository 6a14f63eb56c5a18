import type { FastifyPluginAsync } from "fastify";
import type { Merchant } from "../../merchants/auth.ts";
import type { Database } from "../../platform/db/database.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import { ApiError } from "../../platform/http/errors.ts";
import { errorResponses, merchantSecurity } from "../../platform/http/schemas.ts";
import { EventFollower, eventBody } from "../stream.ts";

/** How often a stream looks for new events: events of every instance, with or without a URL. */
const POLL_MS = 500;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** Open streams per group on one instance: each one polls the database. */
export const MAX_STREAMS_PER_GROUP = 10;

/** What the stream needs of the key check: a key's revocation ends its open streams. */
export interface StreamKeys {
  onRevoked(listener: (publicKey: string | null) => void): () => void;
  stillActive(merchant: Merchant): Promise<boolean>;
}

/**
 * Open streams per group. A slot is taken before the request waits for anything and given back
 * exactly once, whichever way the stream ends: the cap holds under any number of concurrent
 * requests, and a client that hangs up early frees its slot.
 */
class StreamSlots {
  private readonly open = new Map<string, number>();

  take(groupId: string): (() => void) | undefined {
    const used = this.open.get(groupId) ?? 0;
    if (used >= MAX_STREAMS_PER_GROUP) return undefined;
    this.open.set(groupId, used + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(groupId) ?? 1) - 1;
      if (left > 0) this.open.set(groupId, left);
      else this.open.delete(groupId);
    };
  }
}

/** GET /api/v1/events/stream: the group's events as Server-Sent Events, resumable. */
const eventStreamRoute: FastifyPluginAsync<{ db: Database; keys: StreamKeys }> = async (
  app,
  { db, keys },
) => {
  const slots = new StreamSlots();
  /** Each open stream's end, by the public key it was opened with. */
  const streams = new Map<() => void, string>();
  // An open stream would otherwise hold the listener's close until the client hangs up.
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
    for (const end of [...streams.keys()]) end();
  });
  // A revoked key's streams end at once, on every instance (each hears the revocation notice).
  const stopListening = keys.onRevoked((publicKey) => {
    for (const [end, key] of [...streams]) if (publicKey === null || key === publicKey) end();
  });
  app.addHook("onClose", async () => stopListening());

  app.get(
    "/api/v1/events/stream",
    {
      schema: {
        operationId: "streamEvents",
        summary: "Follow the group's events as Server-Sent Events",
        description:
          "Each message has `id:` the eventId (the webhook-id), `event:` the event name and `data:` the webhook body. " +
          "Send `Last-Event-ID` to resume just after that event; without it the stream starts now. " +
          `At most ${MAX_STREAMS_PER_GROUP} streams per group are open at once; revoking the key ends its streams.`,
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
      const { merchant } = request;
      const lastEventId = request.headers["last-event-id"];
      if (lastEventId !== undefined && (typeof lastEventId !== "string" || !UUID_PATTERN.test(lastEventId))) {
        throw new ApiError("INVALID_REQUEST", "Last-Event-ID must be the id of an event of this group");
      }
      const release = slots.take(merchant.groupId);
      if (!release) {
        throw new ApiError("RATE_LIMIT_EXCEEDED", `At most ${MAX_STREAMS_PER_GROUP} open streams per group`);
      }
      let follower: EventFollower | undefined;
      try {
        follower = await EventFollower.open(db, merchant.groupId, lastEventId);
      } catch (error) {
        release();
        throw error;
      }
      if (!follower) {
        release();
        throw new ApiError("INVALID_REQUEST", "Last-Event-ID is not an event of this group");
      }
      const events = follower;

      reply.hijack();
      const out = reply.raw;
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      const end = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        streams.delete(end);
        release();
        // The socket goes with the stream: the client resumes elsewhere with Last-Event-ID.
        out.destroy();
      };
      streams.set(end, merchant.publicKey);
      out.on("close", end);
      out.on("error", end);
      // The client may have gone while the follower opened: its close event has fired already.
      if (closing || out.destroyed || request.raw.destroyed || !out.socket || out.socket.destroyed)
        return end();
      out.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
        "x-request-id": request.id,
        connection: "close",
      });
      out.write("retry: 2000\n\n");

      let lastWrite = Date.now();
      const tick = async () => {
        try {
          const fresh = await events.next();
          // A revocation whose notice was lost still ends the stream within the key cache's lifetime.
          if (!closed && !(await keys.stillActive(merchant))) end();
          if (closed) return;
          for (const event of fresh) {
            out.write(
              `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(eventBody(event))}\n\n`,
            );
          }
          if (fresh.length > 0) lastWrite = Date.now();
          else if (Date.now() - lastWrite >= KEEPALIVE_MS) {
            out.write(": keepalive\n\n");
            lastWrite = Date.now();
          }
        } catch (error) {
          // The client reconnects with Last-Event-ID and misses nothing.
          request.log.warn({ err: error }, "event stream stopped");
          end();
          return;
        }
        if (!closed) timer = setTimeout(() => void tick(), POLL_MS);
      };
      await tick();
    },
  );
};

export default eventStreamRoute;
