// The Fastify instance every surface is registered on, and the hooks every request runs.
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "../config/config.ts";
import { customerPathError, pageNotFound } from "../pages/kit/service-pages.ts";
import { rejectUnstorableBody } from "../platform/http/body-guard.ts";
import { answerFrameworkError, installErrorEnvelope } from "../platform/http/error-handler.ts";
import { errorResponseSchema } from "../platform/http/errors.ts";
import { loggerOptions } from "../platform/http/logger.ts";
import type { Metrics } from "../platform/metrics/metrics.ts";

export function createHttpApp(config: Config): FastifyInstance {
  return Fastify({
    logger: loggerOptions(
      config.logLevel,
      config.catalog.flatMap((processor) => processor.hiddenHeaders),
    ),
    bodyLimit: 64 * 1024,
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    // Behind a TLS-terminating proxy: the client's address and https come from its headers.
    trustProxy:
      typeof config.trustProxy === "number"
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    frameworkErrors: answerFrameworkError(customerPathError),
    // Mistyped input is an error, never silently converted ("100" is not an amount).
    ajv: { customOptions: { coerceTypes: false, allErrors: false, allowUnionTypes: true } },
  });
}

/** One error envelope, a body guard, the request's id and timing on every answer of every surface. */
export function installCommonHooks(app: FastifyInstance, metrics: Metrics): void {
  installErrorEnvelope(app, pageNotFound);
  app.addSchema(errorResponseSchema);
  app.addHook("preValidation", rejectUnstorableBody);
  // Hooks that wait for nothing take a callback: an async hook costs every request a promise.
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unknown",
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", "nosniff");
    done(null, payload);
  });
}

export const listeningUrl = (app: FastifyInstance): string => {
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
};

/** A URL on this machine only (localhost, 127.x, [::1]): development, not an installation. */
export const isLocalUrl = (url: string) =>
  /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(new URL(url).hostname);
