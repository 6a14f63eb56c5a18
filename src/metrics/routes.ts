import type { FastifyPluginAsync } from "fastify";
import type { Metrics } from "./metrics.ts";

/** GET /metrics, for Prometheus. */
const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics }> = async (app, { metrics }) => {
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
};

export default metricsRoutes;
