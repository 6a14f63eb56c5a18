/**
 * What a domain module refuses, in the catalogue's words. The domain knows nothing of HTTP: the
 * HTTP layer maps each code to its status (src/platform/http/errors.ts), the pages to a message.
 */
export type DomainErrorCode =
  | "INVALID_REQUEST"
  | "NOT_FOUND"
  | "ALREADY_COMPLETED"
  | "REFUND_NOT_ALLOWED"
  | "NO_ACTIVE_SAFESITE"
  | "NO_ELIGIBLE_PROCESSOR"
  | "IDEMPOTENCY_CONFLICT"
  | "IDEMPOTENCY_IN_PROGRESS"
  | "PROCESSOR_ERROR"
  | "DISPUTE_CLOSED"
  | "SERVICE_UNAVAILABLE"
  | "UNAUTHORIZED"
  | "ACCOUNT_EXISTS"
  | "RATE_LIMIT_EXCEEDED";

export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what = "Payment") => new DomainError("NOT_FOUND", `${what} not found`);
