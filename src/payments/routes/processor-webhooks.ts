import type { FastifyPluginAsync } from "fastify";
import { ApiError } from "../../platform/http/errors.ts";
import { InvalidEventError, ProcessorUnavailableError } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import type { ProcessorEvents } from "../processor-events/service.ts";

/** POST /processor/webhooks/:processor: signed processor events, read by their adapter and applied. */
const processorWebhookRoute: FastifyPluginAsync<{
  processors: ProcessorRegistry;
  processorEvents: ProcessorEvents;
}> = async (app, { processors, processorEvents }) => {
  // The signature covers the exact bytes received, so the body must reach us unparsed.
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );
  app.post<{ Body: Buffer; Params: { processor: string } }>(
    "/processor/webhooks/:processor",
    { schema: { hide: true }, bodyLimit: 512 * 1024 },
    async (request) => {
      const adapter = processors.find(request.params.processor);
      if (!adapter) throw new ApiError("NOT_FOUND", "No such processor");
      if (!Buffer.isBuffer(request.body)) throw new ApiError("INVALID_REQUEST", "Missing event body");
      let event: ReturnType<typeof adapter.parseEvent>;
      try {
        event = adapter.parseEvent(request.body, request.headers);
      } catch (error) {
        if (!(error instanceof InvalidEventError)) throw error;
        request.log.warn({ reason: error.message }, "processor event rejected");
        throw new ApiError("INVALID_REQUEST", "Invalid processor event signature");
      }
      try {
        await processorEvents.apply(adapter, event);
      } catch (error) {
        // Unanswered, the processor retries the event later; acknowledged, it would be lost.
        if (!(error instanceof ProcessorUnavailableError)) throw error;
        request.log.warn(
          { reason: error.message, eventId: event.id },
          "processor event deferred: processor unreachable",
        );
        throw new ApiError(
          "SERVICE_UNAVAILABLE",
          "Could not check the event with the processor; retry later",
        );
      }
      return { received: true };
    },
  );
};

export default processorWebhookRoute;
