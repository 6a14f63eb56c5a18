import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { DatabaseUnavailableError } from "../db/database.ts";
import { ApiError, type ErrorCode, notFound } from "./errors.ts";
import { resourceOfParam } from "./schemas.ts";

const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INVALID_REQUEST",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_TYPE: "UNSUPPORTED_MEDIA_TYPE",
};

function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DatabaseUnavailableError) {
    return new ApiError("SERVICE_UNAVAILABLE", "The service is temporarily unavailable; try again shortly");
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation && fastifyError.validationContext === "params") {
    const param = fastifyError.validation[0]?.instancePath.replace(/^\//, "") ?? "";
    return notFound(resourceOfParam(request.routeOptions.schema?.params, param));
  }
  if (fastifyError.validation) {
    return new ApiError(
      "INVALID_REQUEST",
      `Invalid request: ${fastifyError.message}`,
      fastifyError.validation.map((issue) => ({
        field: issue.instancePath.replace(/^\//, "").replaceAll("/", ".") || issue.params?.missingProperty,
        message: issue.message,
      })),
    );
  }
  const code = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (code) return new ApiError(code, fastifyError.message);
  // JSON.parse failures that reach here (e.g. from a custom parser) are still the client's fault.
  if (fastifyError.statusCode === 400 || error instanceof SyntaxError) {
    return new ApiError("INVALID_REQUEST", error.message);
  }
  if (fastifyError.statusCode === 429) return new ApiError("RATE_LIMIT_EXCEEDED", error.message);
  return new ApiError("INTERNAL_ERROR", "An unexpected error occurred");
}

/** One envelope for every error, including the framework's own (bad JSON, unknown route). */
export function installErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error as FastifyError, request);
    // The request id is on every line. Only the unexpected carries a stack.
    if (apiError.clientFault) {
      request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, apiError.message);
    } else if (error instanceof ApiError) {
      request.log.error({ code: apiError.code, statusCode: apiError.statusCode }, apiError.message);
    } else {
      request.log.error({ err: error, code: apiError.code }, "request failed");
    }
    reply.code(apiError.statusCode).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`);
    reply.code(404).send(error.toBody());
  });
}
