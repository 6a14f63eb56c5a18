import { ERROR_STATUS, errorResponseSchema } from "../http/errors.ts";
import { paymentResourceSchema } from "../payments/resource.ts";
import { createPaymentResultSchema, refundResourceSchema } from "../payments/schemas.ts";
import { currenciesAsEnum, REQUEST_EXAMPLES } from "./examples.ts";
import { adminSchemas, eventSchema, webhookPayloadSchema } from "./schemas.ts";

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  summary?: string;
  requestBody?: unknown;
  responses?: Record<string, Json>;
}

/**
 * Every operation's name, as a generated client calls it. A route missing here fails the
 * document's test, so a new route cannot ship nameless.
 */
export const OPERATION_IDS: Record<string, string> = {
  "get /api/v1/auth/test": "testAuth",
  "post /api/v1/payments/create": "createPayment",
  "get /api/v1/payments": "listPayments",
  "get /api/v1/payments/{id}": "getPayment",
  "delete /api/v1/payments/{id}": "cancelPayment",
  "post /api/v1/payments/{id}/refunds": "createRefund",
  "get /api/v1/payments/{id}/refunds": "listRefunds",
  "get /api/v1/payments/{id}/events": "listPaymentEvents",
  "post /api/v1/payments/{id}/events/{eventId}/resend": "resendEvent",
  "get /api/v1/events": "listEvents",
  "post /api/v1/events/recover": "recoverEvents",
  "get /api/v1/events/stream": "streamEvents",
  "post /api/v1/sandbox/trigger": "triggerSandboxEvent",
  "post /api/v1/payment-links": "createPaymentLink",
  "get /api/v1/payment-links": "listPaymentLinks",
  "get /api/v1/payment-links/{linkId}": "getPaymentLink",
  "patch /api/v1/payment-links/{linkId}": "changePaymentLink",
  "get /api/v1/webhook-settings": "getWebhookSettings",
  "put /api/v1/webhook-settings": "setWebhookSettings",
  "get /api/v1/branding": "getBranding",
  "put /api/v1/branding": "setBranding",
  "get /admin/v1/groups": "listGroups",
  "post /admin/v1/groups": "createGroup",
  "get /admin/v1/groups/{groupId}": "getGroup",
  "post /admin/v1/groups/{groupId}/webhook-secret/rotate": "rotateWebhookSecret",
  "post /admin/v1/groups/{groupId}/safe-sites": "addSafeSite",
  "patch /admin/v1/safe-sites/{id}": "updateSafeSite",
  "post /admin/v1/groups/{groupId}/keys": "createKey",
  "delete /admin/v1/keys/{publicKey}": "revokeKey",
  "get /admin/v1/reconciliation": "listReconciliationItems",
  "post /admin/v1/reconciliation/runs": "startReconciliationRun",
  "get /admin/v1/reconciliation/runs/{runId}": "getReconciliationRun",
  "post /admin/v1/reconciliation/items/{itemId}/refund": "refundOrphanCheckout",
  "post /admin/v1/payments/{transactionId}/refunds": "refundPaidAfterCancel",
  "get /admin/v1/deliveries/failed": "listFailedDeliveries",
  "post /admin/v1/deliveries/recover": "recoverDeliveries",
  "post /admin/v1/groups/{groupId}/users": "inviteUser",
  "post /admin/v1/operators": "inviteOperator",
  "post /admin/v1/accounts/password-resets": "createPasswordReset",
  "get /admin/v1/groups/{groupId}/routing": "getRouting",
  "put /admin/v1/groups/{groupId}/routing": "setRouting",
  "delete /admin/v1/groups/{groupId}/routing": "clearRouting",
};

/** Error statuses a route can answer besides those its own schema lists. */
function errorStatuses(path: string, method: string, operation: Operation): number[] {
  const statuses = [400, 401, 404, 429, 500, 503];
  if (operation.requestBody !== undefined || method === "post" || method === "patch") statuses.push(413, 415);
  const id = operation.operationId;
  if (id === "createPayment" || id === "createRefund" || id === "refundPaidAfterCancel")
    statuses.push(409, 502);
  if (id === "inviteUser" || id === "inviteOperator") statuses.push(409);
  if (path.startsWith("/admin/") && id !== undefined) statuses.push(403);
  return [...new Set(statuses)].sort();
}

const ERROR_RESPONSES: Record<number, [name: string, description: string]> = {
  400: ["BadRequest", "The request is malformed, or not allowed in the payment's state"],
  401: ["Unauthorized", "Missing or wrong credentials"],
  403: ["Forbidden", "The credentials may not do this"],
  404: ["NotFound", "No such resource for these credentials"],
  409: [
    "Conflict",
    "A conflicting state: no active SafeSite, an Idempotency-Key reused with another body (IDEMPOTENCY_CONFLICT) " +
      "or whose request is still running (IDEMPOTENCY_IN_PROGRESS: ask again with the same key after Retry-After), " +
      "an account that exists",
  ],
  413: ["PayloadTooLarge", "The body is over 64 KiB"],
  415: ["UnsupportedMediaType", "The body is not application/json"],
  429: ["TooManyRequests", "Too many requests; wait for Retry-After seconds"],
  500: ["InternalError", "The service failed; the request may be retried"],
  502: ["ProcessorError", "The payment processor refused or failed"],
  503: ["ServiceUnavailable", "The service is starting, stopping or cannot reach its database; retry"],
};

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema });
const REQUEST_ID = header("The request's id, as in the service's logs; send X-Request-Id to choose it", {
  type: "string",
});
const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": header("Requests allowed per window for this key", { type: "integer" }),
  "X-RateLimit-Remaining": header("Requests left in the current window", { type: "integer" }),
  "X-RateLimit-Reset": header("Seconds until the window resets", { type: "integer" }),
};
const RETRY_AFTER = header("Seconds to wait before retrying", { type: "integer" });
const IDEMPOTENT_REPLAYED = header(
  "`true` when this is the stored answer of an earlier request with the same Idempotency-Key",
  { type: "string", enum: ["true"] },
);

/** The hash of the <style> element Swagger UI (swagger-ui-dist 5) writes when it starts. */
export const SWAGGER_UI_STYLE_HASH = "sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=";

const errorExample = (status: number) => {
  const code = Object.entries(ERROR_STATUS).find(([, value]) => value === status)?.[0] ?? "INTERNAL_ERROR";
  return { success: false, error: { code, message: ERROR_RESPONSES[status]?.[1] ?? "Error" } };
};

const { $id: _sharedId, ...errorBody } = errorResponseSchema;
const ERROR_SCHEMA = { ...errorBody, example: errorExample(404) };

/** Schemas a route writes inline, named here so a generated client gets Payment, Refund, …. */
const NAMED_INLINE: [name: string, schema: unknown][] = [
  ["Payment", paymentResourceSchema],
  ["Refund", refundResourceSchema],
  ["CreatedPayment", createPaymentResultSchema],
];

const PAYMENT_EXAMPLE = {
  id: "5f0c8a52-3f3b-4c3e-9d6b-0a8f4f3b2c1d",
  status: "succeeded",
  amount: 1999,
  currency: "usd",
  customerEmail: "jane@example.com",
  description: "Blue mug",
  metadata: { orderId: "A-1001" },
  processorSessionId: "cs_test_a1b2c3",
  processorPaymentIntentId: "pi_3Nx1",
  createdAt: "2026-11-24T09:00:00.000Z",
  completedAt: "2026-11-24T09:02:13.000Z",
  amountRefunded: 0,
  paidAfterCancel: false,
};

const stable = (value: unknown) => JSON.stringify(value);

/** Replaces every inline copy of a named schema with a reference to it. */
function nameInlineSchemas(node: unknown, byText: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => nameInlineSchemas(item, byText));
  if (!node || typeof node !== "object") return node;
  const name = byText.get(stable(node));
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, nameInlineSchemas(value, byText)]),
  );
}

const envelope = (data: Json) => ({
  type: "object",
  required: ["success", "data"],
  properties: { success: { type: "boolean", const: true }, data },
});

/**
 * The document @fastify/swagger builds from the route schemas, finished: operation names, every
 * status with a named error answer, response headers, named schemas, examples and the webhook.
 */
export function finishOpenApiDocument(document: Json, options: { publicUrl: string; local: boolean }): Json {
  const components = (document.components ?? {}) as Json & { schemas?: Json };
  const schemas: Json = { ...(components.schemas ?? {}) };
  delete schemas.ErrorResponse;
  for (const key of Object.keys(schemas)) if (/^def-\d+$/.test(key)) delete schemas[key];
  schemas.Error = ERROR_SCHEMA;
  for (const [name, schema] of NAMED_INLINE) schemas[name] = schema;
  (schemas.Payment as Json) = { ...(paymentResourceSchema as Json), example: PAYMENT_EXAMPLE };
  schemas.Event = eventSchema;
  schemas.WebhookPayload = webhookPayloadSchema;
  Object.assign(schemas, adminSchemas);
  const byText = new Map(NAMED_INLINE.map(([name, schema]) => [stable(schema), name]));

  const responses: Json = {};
  for (const [status, [name, description]] of Object.entries(ERROR_RESPONSES)) {
    responses[name] = {
      description,
      headers: {
        "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
        ...((status === "409" || status === "429" || status === "503") && {
          "Retry-After": { $ref: "#/components/headers/Retry-After" },
        }),
      },
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          example: errorExample(Number(status)),
        },
      },
    };
  }

  const paths = currenciesAsEnum(document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method} ${path}`;
      const operationId = operation.operationId ?? OPERATION_IDS[key];
      if (operationId) operation.operationId = operationId;
      const body = (operation.requestBody as { content?: Record<string, Json> } | undefined)?.content?.[
        "application/json"
      ];
      const example = REQUEST_EXAMPLES[operationId ?? ""];
      if (body && example) body.example = example;
      const merchant = path.startsWith("/api/");
      const statusResponses: Record<string, Json> = {};
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) >= 400) continue;
        const named = nameInlineSchemas(response, byText) as Json;
        statusResponses[status] = {
          ...named,
          description:
            named.description === "Default Response" ? successDescription(Number(status)) : named.description,
          headers: {
            ...((named.headers as Json | undefined) ?? {}),
            "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
            ...(merchant && RATE_LIMIT_REFS),
            ...((operation.operationId === "createPayment" || operation.operationId === "createRefund") && {
              "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" },
            }),
          },
        };
      }
      const documented = SUCCESS_SCHEMAS[operation.operationId ?? ""];
      if (documented) {
        // What @fastify/swagger says of a route without a response schema ("Default Response") goes.
        for (const [status, response] of Object.entries(statusResponses)) {
          if (status.startsWith("2") && response.content === undefined) delete statusResponses[status];
        }
        statusResponses[String(documented.status)] = {
          description: successDescription(documented.status),
          headers: {
            "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
            ...(merchant && RATE_LIMIT_REFS),
          },
          content: { "application/json": { schema: envelope(documented.data) } },
        };
      }
      for (const status of errorStatuses(path, method, operation)) {
        const named = ERROR_RESPONSES[status];
        if (named) statusResponses[String(status)] = { $ref: `#/components/responses/${named[0]}` };
      }
      operation.responses = statusResponses;
    }
  }

  return {
    ...document,
    paths,
    info: {
      ...(document.info as Json),
      description:
        "Create payments, send customers to a hosted payment link, follow each payment's status, refund it, and " +
        "receive signed webhooks. Amounts are integer cents; times are UTC ISO 8601.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [
      options.local
        ? { url: "/", description: "The service that serves this document" }
        : { url: options.publicUrl, description: "This service" },
    ],
    tags: [
      { name: "payments", description: "Create, read, list and cancel payments" },
      { name: "refunds", description: "Give money back, in full or in part" },
      { name: "webhooks", description: "The events sent to your webhookUrl: their log, replay and stream" },
      { name: "sandbox", description: "Development only: drive the sandbox processor" },
      { name: "auth", description: "Check a key pair" },
      { name: "admin", description: "The operator's API (ADMIN_TOKEN)" },
    ],
    components: {
      ...components,
      schemas,
      responses,
      headers: {
        "X-Request-Id": REQUEST_ID,
        "Retry-After": RETRY_AFTER,
        "Idempotent-Replayed": IDEMPOTENT_REPLAYED,
        ...RATE_LIMIT_HEADERS,
      },
    },
    webhooks: {
      paymentEvent: {
        post: {
          operationId: "receivePaymentEvent",
          // Nothing to present: the signature headers are the proof.
          security: [],
          summary: "A payment event, posted to the payment's webhookUrl",
          description:
            "Signed as Standard Webhooks: verify `webhook-signature` over `webhook-id.webhook-timestamp.body` with the " +
            "group's whsec_ secret. `webhook-id` is the same on every retry and resend: de-duplicate on it. " +
            "Answer 2xx within WEBHOOK_TIMEOUT_MS; anything else is retried.",
          tags: ["webhooks"],
          parameters: [
            {
              name: "webhook-id",
              in: "header",
              required: true,
              schema: { type: "string", format: "uuid" },
              description: "The event's id",
            },
            {
              name: "webhook-timestamp",
              in: "header",
              required: true,
              schema: { type: "string" },
              description: "Seconds since the epoch, of this attempt",
            },
            {
              name: "webhook-signature",
              in: "header",
              required: true,
              schema: { type: "string" },
              description: "`v1,<base64 HMAC-SHA256>`, space-separated during a secret rotation",
            },
            {
              name: "X-Service-Event",
              in: "header",
              required: true,
              schema: { type: "string" },
              description: "The event name",
            },
            {
              name: "X-Service-Transaction",
              in: "header",
              required: true,
              schema: { type: "string", format: "uuid" },
              description: "The payment's transactionId",
            },
            {
              name: "X-Service-Timestamp",
              in: "header",
              required: true,
              schema: { type: "string", format: "date-time" },
              description: "The body's timestamp",
            },
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookPayload" } } },
          },
          responses: {
            "200": { description: "Received; any 2xx will do" },
            "400": {
              description: "Any answer other than 2xx (or no answer) is retried, then recorded as failed",
            },
          },
        },
      },
    },
  };
}

const RATE_LIMIT_REFS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};

const successDescription = (status: number) =>
  status === 201 ? "Created" : status === 202 ? "Accepted: it happens in the background" : "OK";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const list = (name: string) => ({ type: "array", items: ref(name) });

/** The success answers of routes whose handlers have no response schema of their own. */
const SUCCESS_SCHEMAS: Record<string, { status: number; data: Json }> = {
  listPaymentEvents: { status: 200, data: list("Event") },
  listEvents: { status: 200, data: list("Event") },
  listGroups: { status: 200, data: list("GroupSummary") },
  createGroup: { status: 201, data: ref("CreatedGroup") },
  getGroup: { status: 200, data: ref("Group") },
  rotateWebhookSecret: { status: 200, data: ref("WebhookSecretRotation") },
  addSafeSite: { status: 201, data: ref("SafeSite") },
  updateSafeSite: { status: 200, data: ref("SafeSite") },
  createKey: { status: 201, data: ref("KeyPair") },
  revokeKey: { status: 200, data: ref("RevokedKey") },
  listReconciliationItems: { status: 200, data: list("ReconciliationItem") },
  startReconciliationRun: { status: 202, data: ref("StartedRun") },
  getReconciliationRun: { status: 200, data: ref("ReconciliationRun") },
  listFailedDeliveries: { status: 200, data: list("FailedDelivery") },
  recoverDeliveries: { status: 202, data: ref("Queued") },
  inviteUser: { status: 201, data: ref("Invite") },
  inviteOperator: { status: 201, data: ref("Invite") },
  createPasswordReset: { status: 201, data: ref("PasswordReset") },
};
