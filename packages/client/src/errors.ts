/** An error answer of the service, or a request that got no answer (`status` 0). */
export class CheckoutError extends Error {
  override readonly name = "CheckoutError";
  /** The `X-Request-Id` of the answer, for the service's logs. */
  readonly requestId: string | undefined;
  readonly details: unknown;
  /**
   * The Idempotency-Key the call was sent with (creates and refunds). After an error whose outcome
   * is unknown (no answer, 5xx, IDEMPOTENCY_IN_PROGRESS), repeat the call with this key: the
   * service then answers with the first request's result instead of paying or refunding twice.
   */
  readonly idempotencyKey: string | undefined;

  constructor(
    /** The HTTP status; 0 when no answer came (the service was unreachable). */
    readonly status: number,
    /** The service's error code, e.g. `INVALID_REQUEST`; `CONNECTION_ERROR` when no answer came. */
    readonly code: string,
    message: string,
    more: { requestId?: string | undefined; details?: unknown; idempotencyKey?: string | undefined } = {},
  ) {
    super(message);
    this.requestId = more.requestId;
    this.details = more.details;
    this.idempotencyKey = more.idempotencyKey;
  }
}

/** A webhook whose signature does not hold: wrong secret, altered body, or too old. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
