// Each operation's name, its error answers and its documented success, by path and method.

export type Json = Record<string, unknown>;

export interface Operation extends Json {
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
  "get /api/v1/disputes": "listDisputes",
  "get /api/v1/disputes/{disputeId}": "getDispute",
  "get /api/v1/payments/{id}/disputes": "listPaymentDisputes",
  "post /api/v1/disputes/{disputeId}/evidence": "sendDisputeEvidence",
  "post /api/v1/disputes/{disputeId}/accept": "acceptDispute",
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
  "post /api/v1/webhook-endpoints": "createWebhookEndpoint",
  "get /api/v1/webhook-endpoints": "listWebhookEndpoints",
  "get /api/v1/webhook-endpoints/{endpointId}": "getWebhookEndpoint",
  "patch /api/v1/webhook-endpoints/{endpointId}": "changeWebhookEndpoint",
  "delete /api/v1/webhook-endpoints/{endpointId}": "deleteWebhookEndpoint",
  "post /api/v1/webhook-endpoints/{endpointId}/rotate-secret": "rotateWebhookEndpointSecret",
  "post /api/v1/webhook-endpoints/{endpointId}/test": "testWebhookEndpoint",
  "get /api/v1/branding": "getBranding",
  "put /api/v1/branding": "setBranding",
  "post /api/v1/customers/erase": "eraseCustomer",
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
  "post /admin/v1/customers/erase": "eraseCustomerOfAnyGroup",
};

/** Error statuses a route can answer besides those its own schema lists. */
export function errorStatuses(path: string, method: string, operation: Operation): number[] {
  const statuses = [400, 401, 404, 429, 500, 503];
  if (operation.requestBody !== undefined || method === "post" || method === "patch") statuses.push(413, 415);
  const id = operation.operationId;
  if (id === "createPayment" || id === "createRefund" || id === "refundPaidAfterCancel")
    statuses.push(409, 502);
  if (id === "inviteUser" || id === "inviteOperator") statuses.push(409);
  if (id === "sendDisputeEvidence" || id === "acceptDispute") statuses.push(409, 502);
  if (path.startsWith("/admin/") && id !== undefined) statuses.push(403);
  return [...new Set(statuses)].sort();
}

export const ERROR_RESPONSES: Record<number, [name: string, description: string]> = {
  400: ["BadRequest", "The request is malformed, or not allowed in the payment's state"],
  401: ["Unauthorized", "Missing or wrong credentials"],
  403: ["Forbidden", "The credentials may not do this"],
  404: ["NotFound", "No such resource for these credentials"],
  409: [
    "Conflict",
    "A conflicting state: no active SafeSite, an Idempotency-Key reused with another body (IDEMPOTENCY_CONFLICT) " +
      "or whose request is still running (IDEMPOTENCY_IN_PROGRESS: ask again with the same key after Retry-After), " +
      "an account that exists, a dispute no longer taking evidence or acceptance (DISPUTE_CLOSED)",
  ],
  413: ["PayloadTooLarge", "The body is over 64 KiB"],
  415: ["UnsupportedMediaType", "The body is not application/json"],
  429: ["TooManyRequests", "Too many requests; wait for Retry-After seconds"],
  500: ["InternalError", "The service failed; the request may be retried"],
  502: ["ProcessorError", "The payment processor refused or failed"],
  503: ["ServiceUnavailable", "The service is starting, stopping or cannot reach its database; retry"],
};

export const successDescription = (status: number) =>
  status === 201 ? "Created" : status === 202 ? "Accepted: it happens in the background" : "OK";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const list = (name: string) => ({ type: "array", items: ref(name) });

/** The success answers of routes whose handlers have no response schema of their own. */
export const SUCCESS_SCHEMAS: Record<string, { status: number; data: Json }> = {
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
