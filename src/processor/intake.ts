import type { FastifyPluginAsync } from "fastify";
import { ApiError } from "../http/errors.ts";
import type { PaymentsService } from "../payments/service.ts";
import { InvalidEventError, type Processor, ProcessorError } from "./processor.ts";

/** POST /processor/webhooks/stripe: signed processor events, turned into facts and applied. */
const processorIntakeRoute: FastifyPluginAsync<{ processor: Processor; payments: PaymentsService }> = async (
  app,
  { processor, payments },
) => {
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
      let event: ReturnType<Processor["parseEvent"]>;
      try {
        event = processor.parseEvent(request.body, signature);
      } catch (error) {
        if (!(error instanceof InvalidEventError)) throw error;
        request.log.warn({ reason: error.message }, "processor event rejected");
        throw new ApiError("INVALID_REQUEST", "Invalid processor event signature");
      }
      try {
        await payments.applyProcessorEvent(event);
      } catch (error) {
        // Unanswered, the processor retries the event later; acknowledged, it would be lost.
        if (!(error instanceof ProcessorError)) throw error;
        request.log.warn(
          { err: error, eventId: event.id },
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

export default processorIntakeRoute;
