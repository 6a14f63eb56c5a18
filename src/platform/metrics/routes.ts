import type { FastifyPluginAsync } from "fastify";
import { secretMatches } from "../crypto/secret-hash.ts";
import { ApiError } from "../http/errors.ts";
import type { Metrics } from "./metrics.ts";

/** GET /metrics, for Prometheus; behind a bearer token when METRICS_TOKEN is set. */
const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics; tokenHash: Buffer | undefined }> = async (
  app,
  { metrics, tokenHash },
) => {
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    if (tokenHash) {
      const match = /^Bearer (\S{1,500})$/.exec(request.headers.authorization ?? "");
      if (!match?.[1] || !secretMatches(match[1], tokenHash)) {
        throw new ApiError("UNAUTHORIZED", "Missing or invalid metrics token");
      }
    }
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
};

export default metricsRoutes;
