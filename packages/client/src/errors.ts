/** An error answer of the service, or a request that got no answer (`status` 0). */
export class CheckoutError extends Error {
  override readonly name = "CheckoutError";
  constructor(
    /** The HTTP status; 0 when no answer came (the service was unreachable). */
    readonly status: number,
    /** The service's error code, e.g. `INVALID_REQUEST`; `CONNECTION_ERROR` when no answer came. */
    readonly code: string,
    message: string,
    /** The `X-Request-Id` of the answer, for the service's logs. */
    readonly requestId?: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A webhook whose signature does not hold: wrong secret, altered body, or too old. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
