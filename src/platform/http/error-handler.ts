import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DatabaseUnavailableError } from "../db/database.ts";
import { DomainError, notFound } from "../errors/domain-error.ts";
import { ApiError, type ErrorCode } from "./errors.ts";
import { resourceOfParam } from "./schemas.ts";
import { describeValidation } from "./validation-messages.ts";

/** How soon a client may retry when the database (or the processor, for its events) is away. */
export const RETRY_AFTER_SECONDS = "5";
/** How soon to ask again about a request still running under the same Idempotency-Key. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = "1";

const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INVALID_REQUEST",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_TYPE: "UNSUPPORTED_MEDIA_TYPE",
};

export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    return new ApiError(error.code, error.message);
  }
  if (error instanceof DatabaseUnavailableError) {
    return new ApiError("SERVICE_UNAVAILABLE", "The service is temporarily unavailable; try again shortly");
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation && fastifyError.validationContext === "params") {
    const param = fastifyError.validation[0]?.instancePath.replace(/^\//, "") ?? "";
    return toApiError(notFound(resourceOfParam(request.routeOptions.schema?.params, param)), request);
  }
  if (fastifyError.validation) {
    const problems = describeValidation(fastifyError.validation, fastifyError.validationContext);
    const message = problems.map((problem) => problem.message).join("; ") || "The request is not valid";
    return new ApiError("INVALID_REQUEST", message, problems);
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

/**
 * A page instead of the JSON envelope, for a path people open in a browser: the answer sent, or
 * undefined when the path is the API's. The pages' kit provides it; this layer knows no HTML.
 */
export type PageAnswer = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

/**
 * Errors the router raises before any route runs (an undecodable URL, an over-long path
 * parameter): the same envelope as everything else, or a page on the customer's paths.
 */
export const answerFrameworkError =
  (page: PageAnswer) =>
  (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    // An id that long, or a path that does not decode, names nothing that exists.
    const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
    request.log.info({ code: error.code }, "unroutable request");
    if (page(request, reply)) return;
    const apiError = tooLong
      ? new ApiError("NOT_FOUND", "Resource not found")
      : new ApiError("INVALID_REQUEST", "The request URL is not valid");
    void reply.code(apiError.statusCode).send(apiError.toBody());
  };

/** One envelope for every error, including the framework's own (bad JSON, unknown route). */
export function installErrorEnvelope(app: FastifyInstance, notFoundPage: PageAnswer): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error as FastifyError, request);
    // The request id is on every line. Only the unexpected carries a stack.
    if (apiError.clientFault) {
      request.log.info({ code: apiError.code, statusCode: apiError.statusCode }, apiError.message);
    } else if (error instanceof ApiError || error instanceof DomainError) {
      request.log.error({ code: apiError.code, statusCode: apiError.statusCode }, apiError.message);
    } else {
      request.log.error({ err: error, code: apiError.code }, "request failed");
    }
    if (apiError.statusCode === 503) reply.header("retry-after", RETRY_AFTER_SECONDS);
    if (apiError.code === "IDEMPOTENCY_IN_PROGRESS")
      reply.header("retry-after", IN_PROGRESS_RETRY_AFTER_SECONDS);
    // The rate-limit plugin sets its own; a 429 raised elsewhere (failed sign-ins) gets a window.
    if (apiError.statusCode === 429 && !reply.hasHeader("retry-after")) reply.header("retry-after", "60");
    reply.code(apiError.statusCode).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const page = notFoundPage(request, reply);
    if (page) return page;
    const error = new ApiError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`);
    reply.code(404).send(error.toBody());
  });
}
