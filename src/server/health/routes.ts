import type { FastifyBaseLogger, FastifyPluginAsync } from "fastify";
import type { Database } from "../../platform/db/database.ts";
import type { RedisLink } from "../../platform/limits/redis-link.ts";
import { pingDatabase } from "./store.ts";

const HEALTH_TIMEOUT_MS = 2000;

type DatabaseCheck = { ok: true; latencyMs: number } | { ok: false; error: string };

export async function checkDatabase(db: Database, log: FastifyBaseLogger): Promise<DatabaseCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pingDatabase(db),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("database did not answer in time")), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    // The detail (host names, server messages) is for the operator's log, not a public endpoint.
    log.warn({ reason: (error as Error).message }, "health check: database unavailable");
    return { ok: false, error: "database unavailable" };
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthOptions {
  db: Database;
  version: string;
  /** The shared rate-limit store, when configured: reported, but never fatal (memory stands in). */
  redis?: RedisLink | undefined;
  /** True once shutdown began: readiness fails so no new traffic is routed here. */
  isDraining: () => boolean;
  /** What this instance runs (SERVICE_ROLES), said by /health (the probes keep the bodies of docs/api.md). */
  roles: readonly string[];
  /** Each enabled processor's breaker: `skipped` while creates pass it over; never unhealthy. */
  processors: () => Record<string, { status: "ok" | "skipped" }>;
}

/** Public health endpoints (docs/api.md, "Health (no keys)"). */
const healthRoutes: FastifyPluginAsync<HealthOptions> = async (
  app,
  { db, version, redis, isDraining, roles, processors },
) => {
  // For load balancers and orchestrators, not API clients: documented in docs/deploy.md, not in the OpenAPI document.
  const schema = { tags: ["health"], security: [], hide: true };
  app.get("/health", { schema: { ...schema, summary: "Full health check" } }, async (_request, reply) => {
    const database = await checkDatabase(db, app.log);
    const body = {
      status: database.ok ? "ok" : "unhealthy",
      timestamp: new Date().toISOString(),
      version,
      checks: {
        database: database.ok
          ? { status: "ok", latencyMs: database.latencyMs }
          : { status: "unhealthy", error: database.error },
        ...(redis && {
          redis: { ...redis.state(), usedFor: "rate limits (per-instance memory while unavailable)" },
        }),
        processors: processors(),
      },
      roles,
    };
    return reply.code(database.ok ? 200 : 503).send(body);
  });
  app.get("/health/live", { schema: { ...schema, summary: "Liveness" } }, async () => ({ status: "ok" }));
  app.get("/health/ready", { schema: { ...schema, summary: "Readiness" } }, async (_request, reply) => {
    if (isDraining()) return reply.code(503).send({ status: "not_ready", reason: "shutting down" });
    const database = await checkDatabase(db, app.log);
    return reply.code(database.ok ? 200 : 503).send({ status: database.ok ? "ready" : "not_ready" });
  });
};

export default healthRoutes;
