import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { ApiError } from "../../http/errors.ts";
import { reachableUrl } from "../../net/unreachable-host.ts";
import type { Services } from "../../services.ts";
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  requestFingerprint,
  storeIdempotentResponse,
} from "../idempotency.ts";
import type { Currency } from "../payment.ts";
import { errorResponses, merchantSecurity, merchantUrlSchema, successEnvelope } from "../schemas.ts";
import { applyTransition } from "../transitions.ts";

export interface CreatePaymentBody {
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  customerEmail?: string;
  customerName?: string;
  description?: string;
  webhookUrl?: string;
  metadata?: Record<string, string | number | boolean | null>;
}

export interface CreatePaymentResult {
  transactionId: string;
  paymentUrl: string;
  sessionId: string;
  expiresAt: string;
}

const bodySchema = {
  type: "object",
  required: ["amount", "currency", "successUrl", "cancelUrl"],
  properties: {
    amount: { type: "integer", minimum: 1, maximum: 99999999, description: "Cents" },
    currency: {
      type: "string",
      pattern: "^([uU][sS][dD]|[cC][aA][dD])$",
      description: "usd or cad, any case",
    },
    successUrl: merchantUrlSchema,
    cancelUrl: merchantUrlSchema,
    customerEmail: { type: "string", format: "email", maxLength: 255 },
    customerName: { type: "string", maxLength: 255 },
    description: { type: "string", maxLength: 1000 },
    webhookUrl: merchantUrlSchema,
    metadata: {
      type: "object",
      maxProperties: 20,
      propertyNames: { minLength: 1, maxLength: 100 },
      additionalProperties: { type: ["string", "number", "boolean", "null"], maxLength: 1000 },
    },
  },
} as const;

const resultSchema = {
  type: "object",
  required: ["transactionId", "paymentUrl", "sessionId", "expiresAt"],
  properties: {
    transactionId: { type: "string", format: "uuid" },
    paymentUrl: { type: "string" },
    sessionId: { type: "string" },
    expiresAt: { type: "string", format: "date-time" },
  },
} as const;

/** The first `{transactionId}` only, as spec §4.2 says. */
export const substituteTransactionId = (url: string, transactionId: string): string =>
  url.replace("{transactionId}", () => transactionId);

/** Reserved `_` keys are dropped: they are ours to overwrite and never shown back. */
function merchantMetadata(metadata: CreatePaymentBody["metadata"]): Record<string, unknown> | null {
  if (!metadata) return null;
  const kept = Object.entries(metadata).filter(([key]) => !key.startsWith("_"));
  return kept.length > 0 ? Object.fromEntries(kept) : null;
}

export default function createPaymentRoute(app: FastifyInstance, services: Services) {
  const { db, config, processor } = services;
  // Per-group turn counter; each instance rotates on its own, which spreads load just as well.
  const rotation = new Map<string, number>();
  const nextTurn = (groupId: string) => {
    const turn = rotation.get(groupId) ?? 0;
    rotation.set(groupId, (turn + 1) % 1_000_000);
    return turn;
  };

  async function create(groupId: string, body: CreatePaymentBody): Promise<CreatePaymentResult> {
    if (body.customerEmail === undefined) {
      throw new ApiError("PROCESSOR_ERROR", "The processor rejected the payment: customerEmail is required");
    }
    const id = randomUUID();
    const linkToken = randomBytes(24).toString("base64url");
    const expiresAt = new Date(Date.now() + config.checkoutTtlSeconds * 1000);
    const metadata = merchantMetadata(body.metadata);
    const metadataDescription = typeof metadata?.description === "string" ? metadata.description : null;
    const webhookUrl = body.webhookUrl ? reachableUrl(body.webhookUrl, config.allowedPrivateHosts) : null;
    // The SafeSite is chosen inside the INSERT: the group's active sites in creation order, taking turns.
    const [site] = await db.query<{ url: string }>(
      `WITH sites AS (
         SELECT id, url, row_number() OVER (ORDER BY position) - 1 AS turn, count(*) OVER () AS active
         FROM safe_sites WHERE group_id = $2 AND is_active
       ), payment AS (
         INSERT INTO payments (id, group_id, status, amount, currency, customer_email, customer_name, description,
           metadata, success_url, cancel_url, webhook_url, safe_site_id, safe_site_url, link_token, expires_at)
         SELECT $1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11, id, url, $12, $13
         FROM sites WHERE turn = $14 % active
         RETURNING id, safe_site_url
       ), audit AS (
         INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason)
         SELECT id, NULL, 'pending', 'created' FROM payment
       )
       SELECT safe_site_url AS url FROM payment`,
      [
        id,
        groupId,
        body.amount,
        body.currency.toLowerCase() as Currency,
        body.customerEmail,
        body.customerName ?? null,
        body.description ?? metadataDescription,
        metadata && JSON.stringify(metadata),
        substituteTransactionId(body.successUrl, id),
        substituteTransactionId(body.cancelUrl, id),
        // An unreachable webhookUrl is not an error (spec §6.3 rule 8): the payment simply has none.
        webhookUrl?.href ?? null,
        linkToken,
        expiresAt,
        nextTurn(groupId),
      ],
    );
    if (!site) {
      throw new ApiError("NO_ACTIVE_SAFESITE", "This group has no active SafeSite to host the payment link");
    }
    const returnUrl = `${site.url}/return/${linkToken}`;
    let session: Awaited<ReturnType<typeof processor.createCheckoutSession>>;
    try {
      session = await processor.createCheckoutSession({
        transactionId: id,
        amount: body.amount,
        currency: body.currency.toLowerCase() as Currency,
        customerEmail: body.customerEmail,
        successUrl: returnUrl,
        cancelUrl: returnUrl,
        expiresAt,
        idempotencyKey: `checkout-session-${id}`,
      });
    } catch (error) {
      app.log.warn({ err: error, transactionId: id }, "processor refused the checkout session");
      // The merchant hears about this failure in the response, so no webhook is sent.
      await applyTransition(db, {
        paymentId: id,
        to: "failed",
        from: ["pending"],
        reason: "processor_error",
        notify: false,
      });
      throw new ApiError("PROCESSOR_ERROR", "The payment processor could not create the checkout session");
    }
    const issued = await applyTransition(db, {
      paymentId: id,
      to: "processing",
      from: ["pending"],
      reason: "checkout_link_issued",
      processorSessionId: session.id,
      processorCheckoutUrl: session.url,
    });
    if (!issued) {
      // Cancelled by the merchant while the processor was answering; the link still works (§3.2).
      app.log.info({ transactionId: id }, "payment cancelled before its link was issued");
    }
    return {
      transactionId: id,
      paymentUrl: `${site.url}/pay/${linkToken}`,
      sessionId: session.id,
      expiresAt: expiresAt.toISOString(),
    };
  }

  app.post<{ Body: CreatePaymentBody; Headers: { "idempotency-key"?: string } }>(
    "/api/v1/payments/create",
    {
      schema: {
        summary: "Create a payment",
        tags: ["payments"],
        security: merchantSecurity,
        headers: {
          type: "object",
          properties: { "idempotency-key": { type: "string", minLength: 1, maxLength: 255 } },
        },
        body: bodySchema,
        response: {
          200: successEnvelope(resultSchema),
          ...errorResponses,
          409: { $ref: "ErrorResponse#" },
          502: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const key = request.headers["idempotency-key"];
      if (!key) return { success: true, data: await create(groupId, request.body) };
      const stored = await claimIdempotencyKey(db, groupId, key, requestFingerprint(request.body));
      if (stored) return { success: true, data: stored };
      try {
        const data = await create(groupId, request.body);
        await storeIdempotentResponse(db, groupId, key, data);
        return { success: true, data };
      } catch (error) {
        await releaseIdempotencyKey(db, groupId, key).catch(() => {});
        throw error;
      }
    },
  );
}
