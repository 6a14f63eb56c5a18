import { CURRENCIES, CURRENCY_INPUT_PATTERN } from "../platform/format/money.ts";

type Json = Record<string, unknown>;

const SINCE = "2026-11-01T00:00:00Z";
const UNTIL = "2026-11-02T00:00:00Z";

/**
 * A request body for each operation that takes one, as a merchant would send it: what the explorer
 * at /docs fills in (it would otherwise make strings up from the patterns, such as "cAD").
 */
export const REQUEST_EXAMPLES: Record<string, Json> = {
  createPayment: {
    amount: 1999,
    currency: "usd",
    successUrl: "https://shop.example/thanks/{transactionId}",
    cancelUrl: "https://shop.example/cart",
    customerEmail: "jane@example.com",
    description: "Blue mug",
    webhookUrl: "https://shop.example/webhooks/checkout",
    metadata: { orderId: "A-1001" },
  },
  createRefund: { amount: 500, reason: "requested_by_customer" },
  createPaymentLink: {
    name: "Hand-thrown mug",
    currency: "usd",
    amount: 1800,
    description: "Stoneware, 350 ml",
    successUrl: "https://shop.example/thanks",
  },
  changePaymentLink: { active: false },
  setWebhookSettings: { url: "https://shop.example/webhooks/checkout" },
  setBranding: { displayName: "Shop Example", brandColor: "#1d4ed8", receipts: true },
  recoverEvents: { since: SINCE, until: UNTIL },
  triggerSandboxEvent: { event: "payment.completed" },
  createGroup: { name: "Shop Example", safeSites: [{ name: "Main", url: "https://pay.shop.example" }] },
  rotateWebhookSecret: { graceSeconds: 86400 },
  addSafeSite: { name: "Main", url: "https://pay.shop.example", isActive: true },
  updateSafeSite: { isActive: false },
  startReconciliationRun: { since: SINCE, until: UNTIL },
  recoverDeliveries: { since: SINCE, until: UNTIL },
  setRouting: { routes: [{ currency: "usd", processors: ["square", "stripe"] }, { processors: ["stripe"] }] },
  inviteUser: { email: "owner@shop.example", role: "owner" },
  inviteOperator: { email: "you@example.com" },
  createPasswordReset: { email: "owner@shop.example", audience: "dashboard" },
};

/**
 * The currency as clients should send it: one of the lowercase codes. The service also accepts
 * them in any case, which its own validation (a pattern) allows and the description says; the
 * document names the values, so a generated client types them as `"usd" | "cad"`.
 */
export function currenciesAsEnum(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(currenciesAsEnum);
  if (!node || typeof node !== "object") return node;
  const schema = node as Json;
  if (schema.pattern === CURRENCY_INPUT_PATTERN) {
    const { pattern: _pattern, ...rest } = schema;
    return {
      ...rest,
      enum: [...CURRENCIES],
      description: `${CURRENCIES.join(" or ")} (any case is accepted)`,
    };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, currenciesAsEnum(value)]));
}
