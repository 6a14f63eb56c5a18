import { paymentResourceSchema } from "../payments/resource.ts";
import {
  createPaymentResultSchema,
  disputeResourceSchema,
  refundResourceSchema,
} from "../payments/schemas.ts";
import { ERROR_STATUS, errorResponseSchema } from "../platform/http/errors.ts";
import { currenciesAsEnum, REQUEST_EXAMPLES } from "./examples.ts";
import {
  ERROR_RESPONSES,
  errorStatuses,
  type Json,
  OPERATION_IDS,
  type Operation,
  SUCCESS_SCHEMAS,
  successDescription,
} from "./operations.ts";
import { adminSchemas, eventSchema, webhookPayloadSchema } from "./schemas.ts";

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
  ["Dispute", disputeResourceSchema],
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
      { name: "disputes", description: "Chargebacks at either processor: answer with evidence or accept" },
      { name: "webhooks", description: "The events sent to your webhookUrl: their log, replay and stream" },
      { name: "sandbox", description: "Development only: drive the sandbox processor" },
      { name: "auth", description: "Check a key pair" },
      { name: "customers", description: "Erase a customer on request (GDPR article 17)" },
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
