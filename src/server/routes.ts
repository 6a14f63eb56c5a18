// Every surface of the service, each a named plugin stack with its own auth and limits.
import type { FastifyInstance } from "fastify";
import type { AdminAuthenticator } from "../merchants/admin-token.ts";
import type { RedisLink } from "../platform/limits/redis-link.ts";
import type { Sandbox } from "../sandbox/app.ts";
import { installCommonHooks } from "./http-app.ts";
import type { Services } from "./services.ts";
import { adminApi } from "./surfaces/admin-api.ts";
import { merchantApi } from "./surfaces/merchant-api.ts";
import { pages } from "./surfaces/pages.ts";
import { probes, publicRoutes, registerApiDocs } from "./surfaces/public.ts";

export interface SurfaceContext {
  admin: AdminAuthenticator;
  /** Shared rate-limit counters, when REDIS_URL is set. */
  redis: RedisLink | undefined;
  /** True from SIGTERM on: readiness fails while requests are still served. */
  isDraining: () => boolean;
  /** The in-process sandbox processor, when PROCESSOR=sandbox. */
  sandbox: Sandbox | undefined;
}

/**
 * The surfaces, in order: probes (every instance), then, on an instance with the `api` role, the
 * API's description, the merchant API, the admin API, the pages and the public routes.
 */
export async function registerSurfaces(
  app: FastifyInstance,
  services: Services,
  { admin, redis, isDraining, sandbox }: SurfaceContext,
): Promise<void> {
  installCommonHooks(app, services.metrics);
  await app.register(probes, { services, redis, isDraining });
  // A workers-only instance answers its probes and metrics, nothing else.
  if (!services.config.serviceRoles.includes("api")) return;
  await registerApiDocs(app, services);
  await app.register(merchantApi, { services, redis, sandbox });
  await app.register(adminApi, { services, admin });
  await app.register(pages, { services, redis });
  await app.register(publicRoutes, { services, redis });
}
