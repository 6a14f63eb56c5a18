import type { FastifyInstance } from "fastify";
import type { Services } from "../services.ts";

const HEALTH_TIMEOUT_MS = 2000;

async function pingDatabase(
  services: Services,
): Promise<{ ok: true; latencyMs: number } | { ok: false; error: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      services.db.query("SELECT 1"),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("database did not answer in time")), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: (error as Error).message.replace(/^database unavailable: /, "") };
  } finally {
    clearTimeout(timer);
  }
}

export default function healthRoutes(app: FastifyInstance, services: Services) {
  const schema = { tags: ["health"], security: [] };
  app.get("/health", { schema: { ...schema, summary: "Full health check" } }, async (_request, reply) => {
    const database = await pingDatabase(services);
    const body = {
      status: database.ok ? "ok" : "unhealthy",
      timestamp: new Date().toISOString(),
      version: services.config.version,
      checks: {
        database: database.ok
          ? { status: "ok", latencyMs: database.latencyMs }
          : { status: "unhealthy", error: database.error },
      },
    };
    return reply.code(database.ok ? 200 : 503).send(body);
  });
  app.get("/health/live", { schema: { ...schema, summary: "Liveness" } }, async () => ({ status: "ok" }));
  app.get("/health/ready", { schema: { ...schema, summary: "Readiness" } }, async (_request, reply) => {
    const database = await pingDatabase(services);
    return reply.code(database.ok ? 200 : 503).send({ status: database.ok ? "ready" : "not_ready" });
  });
}
