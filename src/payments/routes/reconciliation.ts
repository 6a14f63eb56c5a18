import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byAdminToken } from "../../platform/audit/store.ts";
import {
  adminSecurity,
  errorResponses,
  NUMERIC_ID_PATTERN,
  successEnvelope,
  uuidParam,
} from "../../platform/http/schemas.ts";
import { recoverBodySchema, storableTime } from "../../platform/http/window.ts";
import { PROCESSOR_NAMES } from "../../processor/catalog.ts";
import type { OrphanRefunds } from "../reconciliation/orphans.ts";
import type { Reconciliation } from "../reconciliation/service.ts";
import type { Refunds } from "../refunds/service.ts";
import { refundResourceSchema } from "../schemas.ts";

const runSchema = {
  type: "object",
  required: ["runId", "status", "checked", "repaired", "drifts"],
  properties: {
    runId: { type: "string", format: "uuid" },
    status: { type: "string", enum: ["running", "finished"] },
    since: { type: "string", format: "date-time" },
    until: { type: "string", format: "date-time" },
    checked: { type: "integer", description: "Payments compared with the processor" },
    repaired: { type: "integer", description: "Changes applied because the processor proved them" },
    drifts: { type: "integer", description: "Payments that still differ: listed for the operator" },
    startedAt: { type: "string", format: "date-time" },
    finishedAt: { type: ["string", "null"], format: "date-time" },
  },
} as const;

/** The reconciliation queue, runs against the processor, and the operator's refund. */
const reconciliationRoutes: FastifyPluginAsync<{
  reconciliation: Reconciliation;
  refunds: Refunds;
  orphans: OrphanRefunds;
}> = async (scope, { reconciliation, refunds, orphans }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.get(
    "/admin/v1/reconciliation",
    {
      schema: {
        summary: "The open reconciliation items: one per payment and cause, each with kind and transactionId",
        tags: ["admin"],
        security: adminSecurity,
      },
    },
    async () => ({ success: true, data: await reconciliation.queue(1000) }),
  );

  app.post(
    "/admin/v1/reconciliation/runs",
    {
      schema: {
        summary: "Compare the payments changed in a window with the processor, and repair what it proves",
        tags: ["admin"],
        security: adminSecurity,
        body: recoverBodySchema,
        response: {
          202: successEnvelope({
            type: "object",
            required: ["runId"],
            properties: { runId: { type: "string", format: "uuid" } },
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const since = storableTime(request.body.since, "since");
      const until = request.body.until === undefined ? undefined : storableTime(request.body.until, "until");
      const runId = await reconciliation.start({ since, until }, "admin-token", (id) =>
        byAdminToken(request, null, "reconciliation.run_started", id, {
          since: since.toISOString(),
          until: until?.toISOString() ?? null,
        }),
      );
      return reply.code(202).send({ success: true as const, data: { runId } });
    },
  );

  app.get(
    "/admin/v1/reconciliation/runs/:runId",
    {
      schema: {
        summary: "A reconciliation run's progress and figures",
        tags: ["admin"],
        security: adminSecurity,
        params: {
          type: "object",
          required: ["runId"],
          properties: { runId: uuidParam("Reconciliation run") },
        },
        response: { 200: successEnvelope(runSchema), ...errorResponses },
      },
    },
    async (request) => ({ success: true as const, data: await reconciliation.get(request.params.runId) }),
  );

  app.post(
    "/admin/v1/reconciliation/items/:itemId/refund",
    {
      schema: {
        summary:
          "Refund in full the money a customer paid on a checkout that belongs to no payment (an orphan_checkout_paid or unbooked_payment item), and resolve the item",
        tags: ["admin"],
        security: adminSecurity,
        params: {
          type: "object",
          required: ["itemId"],
          properties: {
            itemId: { type: "string", pattern: NUMERIC_ID_PATTERN, description: "Reconciliation item id" },
          },
        },
        response: {
          201: successEnvelope({
            type: "object",
            required: [
              "itemId",
              "processor",
              "processorPaymentId",
              "processorRefundId",
              "amount",
              "currency",
              "status",
            ],
            properties: {
              itemId: { type: "string" },
              processor: { type: "string", enum: [...PROCESSOR_NAMES] },
              processorPaymentId: { type: "string" },
              processorRefundId: { type: "string" },
              amount: { type: "integer", description: "Minor units" },
              currency: { type: "string" },
              status: { type: "string", enum: ["pending", "succeeded"] },
            },
          }),
          ...errorResponses,
          502: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const { itemId } = request.params;
      const refund = await orphans.refund(itemId, (made) =>
        byAdminToken(request, null, "orphan.refunded", itemId, { ...made }),
      );
      return reply.code(201).send({ success: true as const, data: refund });
    },
  );

  app.post(
    "/admin/v1/payments/:transactionId/refunds",
    {
      schema: {
        summary: "Refund all that remains of a payment, whichever group (a payment paid after cancel)",
        tags: ["admin"],
        security: adminSecurity,
        params: {
          type: "object",
          required: ["transactionId"],
          properties: { transactionId: uuidParam("Payment") },
        },
        response: {
          201: successEnvelope(refundResourceSchema),
          ...errorResponses,
          502: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const { transactionId } = request.params;
      const refund = await refunds.createForOperator(transactionId, "admin-token", (made, groupId) =>
        byAdminToken(request, groupId, "payment.refunded", transactionId, {
          refundId: made.refundId,
          amount: made.amount,
        }),
      );
      return reply.code(201).send({ success: true as const, data: refund });
    },
  );
};

export default reconciliationRoutes;
