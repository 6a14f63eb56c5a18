/** Every error code the service answers with, and its HTTP status. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  ALREADY_COMPLETED: 400,
  REFUND_NOT_ALLOWED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NO_ACTIVE_SAFESITE: 409,
  NO_ELIGIBLE_PROCESSOR: 409,
  IDEMPOTENCY_CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  ACCOUNT_EXISTS: 409,
  DISPUTE_CLOSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  PROCESSOR_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: unknown };
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly statusCode: number;
  /** The caller's mistake, whatever the status says (the create answers a missing email with 502). */
  readonly clientFault: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options: { clientFault?: boolean } = {},
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
    this.clientFault = options.clientFault ?? this.statusCode < 500;
  }

  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { success: false, error };
  }
}

/** JSON schema of the error body, shared by every route's OpenAPI description. */
export const errorResponseSchema = {
  $id: "ErrorResponse",
  type: "object",
  required: ["success", "error"],
  properties: {
    success: { type: "boolean", const: false },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS) },
        message: { type: "string" },
        details: {},
      },
    },
  },
} as const;
