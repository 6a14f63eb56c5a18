import type { FastifyPluginAsync } from "fastify";
import { DatabaseUnavailableError } from "../db/database.ts";
import { RETRY_AFTER_SECONDS } from "../http/error-handler.ts";
import { sendPage } from "../http/html.ts";
import type { ProcessorEvents } from "../payments/processor-events/service.ts";
import type { PaymentQueries } from "../payments/queries/service.ts";

const UNAVAILABLE_PAGE =
  "<h1>Payments are briefly unavailable</h1><p>Nothing was charged. Please try the same link again in a minute.</p>";
const ERROR_PAGE =
  "<h1>Something went wrong</h1><p>Nothing was charged. Please try the same link again, or ask the merchant.</p>";

const PAGES = {
  not_found: {
    status: 404,
    title: "Not found",
    body: "<h1>Payment link not found</h1><p>Check the link you were given, or ask the merchant for a new one.</p>",
  },
  already_paid: {
    status: 410,
    title: "Already paid",
    body: "<h1>This payment is already complete</h1><p>Nothing more to pay.</p>",
  },
  expired: {
    status: 410,
    title: "Link expired",
    body: "<h1>This payment link has expired</h1><p>Ask the merchant for a new one.</p>",
  },
} as const;

/** The customer's pages on a SafeSite: the hosted link and the way back from the processor. */
const checkoutRoutes: FastifyPluginAsync<{
  queries: PaymentQueries;
  processorEvents: ProcessorEvents;
}> = async (app, { queries, processorEvents }) => {
  // People read these answers, not programs: errors are pages too, never JSON.
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof DatabaseUnavailableError) {
      request.log.warn({ err: { message: error.message } }, "customer page: database unavailable");
      reply.header("retry-after", RETRY_AFTER_SECONDS);
      return sendPage(reply, 503, "Temporarily unavailable", UNAVAILABLE_PAGE);
    }
    request.log.error({ err: error }, "customer page failed");
    return sendPage(reply, 500, "Something went wrong", ERROR_PAGE);
  });

  app.get<{ Params: { token: string } }>(
    "/pay/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const answer = await queries.openLink(request.params.token);
      if (answer.kind !== "redirect") {
        const page = PAGES[answer.kind];
        return sendPage(reply, page.status, page.title, page.body);
      }
      reply.header("x-frame-options", "DENY").header("content-security-policy", "frame-ancestors 'none'");
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(answer.url, 303);
    },
  );

  app.get<{ Params: { token: string } }>(
    "/return/:token",
    { schema: { hide: true } },
    async (request, reply) => {
      const destination = await processorEvents.returnDestination(request.params.token);
      if (destination === null) {
        return sendPage(reply, PAGES.not_found.status, PAGES.not_found.title, PAGES.not_found.body);
      }
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply.redirect(destination, 303);
    },
  );
};

export default checkoutRoutes;
