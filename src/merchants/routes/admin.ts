import type { FastifyInstance } from "fastify";
import { type AdminTokenState, authenticateAdmin } from "../../http/admin-auth.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import { API_KEYS_CHANNEL } from "../../http/merchant-auth.ts";
import { UUID_PATTERN } from "../../payments/payment.ts";
import type { Services } from "../../services.ts";
import {
  createGroup,
  findGroup,
  insertApiKey,
  insertSafeSite,
  revokeApiKey,
  updateSafeSite,
} from "../groups.ts";
import { newWebhookSecret } from "../secrets.ts";

const siteUrl = {
  type: "string",
  minLength: 8,
  maxLength: 2000,
  pattern: "^https?://[^\\s/?#]+(/[^\\s?#]*)?$",
};
const name = { type: "string", minLength: 1, maxLength: 200 };
const safeSiteInput = {
  type: "object",
  required: ["name", "url"],
  additionalProperties: false,
  properties: { name, url: siteUrl, isActive: { type: "boolean" } },
} as const;
const idParams = (key: string) => ({
  type: "object",
  required: [key],
  properties: { [key]: { type: "string" } },
});
const security = [{ adminToken: [] }];

interface SafeSiteInput {
  name: string;
  url: string;
  isActive?: boolean;
}

function requireUuid(id: string, what: string) {
  if (!UUID_PATTERN.test(id)) throw notFound(what);
}

export default function adminRoutes(app: FastifyInstance, services: Services, adminToken: AdminTokenState) {
  const { db, config } = services;
  app.register(async (admin) => {
    admin.addHook("onRequest", async (request) => authenticateAdmin(adminToken, request));

    admin.post<{ Body: { name: string; safeSites?: SafeSiteInput[] } }>(
      "/admin/v1/groups",
      {
        schema: {
          summary: "Create a group with its SafeSites and first key pair",
          tags: ["admin"],
          security,
          body: {
            type: "object",
            required: ["name"],
            additionalProperties: false,
            properties: { name, safeSites: { type: "array", maxItems: 50, items: safeSiteInput } },
          },
        },
      },
      async (request, reply) => {
        const safeSites = request.body.safeSites ?? [
          { name: "Default", url: config.publicUrl, isActive: true },
        ];
        const group = await db.transaction((tx) => createGroup(tx, { name: request.body.name, safeSites }));
        return reply.code(201).send({ success: true, data: group });
      },
    );

    admin.get<{ Params: { groupId: string } }>(
      "/admin/v1/groups/:groupId",
      { schema: { summary: "Get a group", tags: ["admin"], security, params: idParams("groupId") } },
      async (request) => {
        requireUuid(request.params.groupId, "Group");
        const group = await findGroup(db, request.params.groupId);
        if (!group) throw notFound("Group");
        return { success: true, data: group };
      },
    );

    admin.post<{ Params: { groupId: string }; Body: SafeSiteInput }>(
      "/admin/v1/groups/:groupId/safe-sites",
      {
        schema: {
          summary: "Add a SafeSite",
          tags: ["admin"],
          security,
          params: idParams("groupId"),
          body: safeSiteInput,
        },
      },
      async (request, reply) => {
        requireUuid(request.params.groupId, "Group");
        if (!(await findGroup(db, request.params.groupId))) throw notFound("Group");
        const site = await insertSafeSite(db, request.params.groupId, request.body);
        return reply.code(201).send({ success: true, data: site });
      },
    );

    admin.patch<{ Params: { id: string }; Body: Partial<SafeSiteInput> }>(
      "/admin/v1/safe-sites/:id",
      {
        schema: {
          summary: "Rename, move, activate or deactivate a SafeSite",
          tags: ["admin"],
          security,
          params: idParams("id"),
          body: {
            type: "object",
            additionalProperties: false,
            minProperties: 1,
            properties: { name, url: siteUrl, isActive: { type: "boolean" } },
          },
        },
      },
      async (request) => {
        requireUuid(request.params.id, "SafeSite");
        const site = await updateSafeSite(db, request.params.id, request.body);
        if (!site) throw notFound("SafeSite");
        return { success: true, data: site };
      },
    );

    admin.post<{ Params: { groupId: string } }>(
      "/admin/v1/groups/:groupId/keys",
      {
        schema: {
          summary: "Issue a new key pair (the secret is shown only in this response)",
          tags: ["admin"],
          security,
          params: idParams("groupId"),
        },
      },
      async (request, reply) => {
        requireUuid(request.params.groupId, "Group");
        if (!(await findGroup(db, request.params.groupId))) throw notFound("Group");
        return reply.code(201).send({ success: true, data: await insertApiKey(db, request.params.groupId) });
      },
    );

    admin.delete<{ Params: { publicKey: string } }>(
      "/admin/v1/keys/:publicKey",
      {
        schema: {
          summary: "Revoke a key pair at once",
          tags: ["admin"],
          security,
          params: idParams("publicKey"),
        },
      },
      async (request) => {
        if (!(await revokeApiKey(db, request.params.publicKey, API_KEYS_CHANNEL))) {
          throw new ApiError("NOT_FOUND", "No active key with that public key");
        }
        services.merchantAuth.forget(request.params.publicKey);
        return { success: true, data: { publicKey: request.params.publicKey, revoked: true } };
      },
    );

    admin.get<{ Querystring: { limit?: string } }>(
      "/admin/v1/deliveries/failed",
      {
        schema: {
          summary: "Webhook deliveries that were dropped, across groups, newest first",
          tags: ["admin"],
          security,
          querystring: { type: "object", properties: { limit: { type: "string", pattern: "^[0-9]{1,4}$" } } },
        },
      },
      async (request) => {
        const limit = Math.min(Math.max(Number(request.query.limit ?? 100), 1), 1000);
        const rows = await db.query<{
          id: string;
          event_id: string;
          event: string;
          payment_id: string;
          group_id: string;
          url: string;
          attempts: number;
          last_status_code: number | null;
          last_error: string | null;
          completed_at: Date;
        }>(
          `SELECT d.id, d.event_id, e.event, e.payment_id, e.group_id, d.url, d.attempts, d.last_status_code,
                  d.last_error, d.completed_at
           FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
           WHERE d.state = 'failed' ORDER BY d.completed_at DESC LIMIT $1`,
          [limit],
        );
        return {
          success: true,
          data: rows.map((row) => ({
            deliveryId: row.id,
            eventId: row.event_id,
            event: row.event,
            transactionId: row.payment_id,
            groupId: row.group_id,
            url: row.url,
            attempts: row.attempts,
            lastStatusCode: row.last_status_code,
            lastError: row.last_error,
            failedAt: row.completed_at.toISOString(),
          })),
        };
      },
    );

    admin.post<{ Params: { groupId: string }; Body: { graceSeconds?: number } | undefined }>(
      "/admin/v1/groups/:groupId/webhook-secret/rotate",
      {
        schema: {
          summary: "Issue a new webhook signing secret; the old one keeps signing during the grace period",
          tags: ["admin"],
          security,
          params: idParams("groupId"),
          body: {
            type: ["object", "null"],
            additionalProperties: false,
            properties: { graceSeconds: { type: "integer", minimum: 0, maximum: 604800 } },
          },
        },
      },
      async (request) => {
        requireUuid(request.params.groupId, "Group");
        const graceSeconds = request.body?.graceSeconds ?? 86400;
        const [row] = await db.query<{ webhook_secret: string; previous_webhook_secret_expires_at: Date }>(
          `UPDATE groups SET previous_webhook_secret = webhook_secret, webhook_secret = $2,
             previous_webhook_secret_expires_at = now() + make_interval(secs => $3)
           WHERE id = $1 RETURNING webhook_secret, previous_webhook_secret_expires_at`,
          [request.params.groupId, newWebhookSecret(), graceSeconds],
        );
        if (!row) throw notFound("Group");
        return {
          success: true,
          data: {
            webhookSecret: row.webhook_secret,
            previousSecretValidUntil: row.previous_webhook_secret_expires_at.toISOString(),
          },
        };
      },
    );

    admin.get(
      "/admin/v1/reconciliation",
      { schema: { summary: "Payments paid after they were cancelled", tags: ["admin"], security } },
      async () => {
        const rows = await db.query<{
          id: string;
          group_id: string;
          amount: number;
          currency: string;
          processor_session_id: string | null;
          processor_payment_intent_id: string | null;
          reconciliation_reason: string | null;
          updated_at: Date;
        }>(
          `SELECT id, group_id, amount, currency, processor_session_id, processor_payment_intent_id,
                  reconciliation_reason, updated_at
           FROM payments WHERE needs_reconciliation ORDER BY created_at LIMIT 1000`,
        );
        return {
          success: true,
          data: rows.map((row) => ({
            transactionId: row.id,
            groupId: row.group_id,
            amount: row.amount,
            currency: row.currency,
            processorSessionId: row.processor_session_id,
            processorPaymentIntentId: row.processor_payment_intent_id,
            reason: row.reconciliation_reason,
            flaggedAt: row.updated_at.toISOString(),
          })),
        };
      },
    );
  });
}
