import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { byApiKey } from "../../platform/audit/store.ts";
import {
  errorResponses,
  merchantSecurity,
  PAGE_QUERY_PROPERTIES,
  pageSchema,
  successEnvelope,
  uuidParam,
} from "../../platform/http/schemas.ts";
import type { DisputeStatus } from "../../processor/port.ts";
import type { Disputes } from "../disputes/service.ts";
import { DISPUTE_STATUSES, disputeEvidenceBodySchema, disputeResourceSchema } from "../schemas.ts";
import { paymentParams } from "./get.ts";

const DEFAULT_LIMIT = 20;

const disputeParams = {
  type: "object",
  required: ["disputeId"],
  properties: { disputeId: uuidParam("Dispute") },
} as const;

const disputeAnswer = {
  200: successEnvelope(disputeResourceSchema),
  ...errorResponses,
  409: { $ref: "ErrorResponse#" },
  502: { $ref: "ErrorResponse#" },
} as const;

const disputeList = {
  type: "object",
  required: ["disputes"],
  properties: { disputes: { type: "array", items: disputeResourceSchema } },
} as const;

/** The group's disputes, one dispute, a payment's disputes; evidence and acceptance. */
const disputeRoutes: FastifyPluginAsync<{ disputes: Disputes }> = async (scope, { disputes }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.get(
    "/api/v1/disputes",
    {
      schema: {
        summary: "List disputes: open ones first, soonest deadline first; then closed ones, newest first",
        tags: ["disputes"],
        security: merchantSecurity,
        querystring: {
          type: "object",
          properties: { status: { type: "string", enum: [...DISPUTE_STATUSES] }, ...PAGE_QUERY_PROPERTIES },
        } as const,
        response: {
          200: successEnvelope(pageSchema("disputes", disputeResourceSchema)),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { status, limit, after } = request.query;
      return {
        success: true as const,
        data: await disputes.list(
          request.merchant.groupId,
          { status: status as DisputeStatus | undefined, afterId: after },
          limit === undefined ? DEFAULT_LIMIT : Number(limit),
        ),
      };
    },
  );

  app.get(
    "/api/v1/disputes/:disputeId",
    {
      schema: {
        summary: "Get one dispute",
        tags: ["disputes"],
        security: merchantSecurity,
        params: disputeParams,
        response: { 200: successEnvelope(disputeResourceSchema), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: await disputes.get(request.merchant.groupId, request.params.disputeId),
    }),
  );

  app.get(
    "/api/v1/payments/:id/disputes",
    {
      schema: {
        summary: "List a payment's disputes, oldest first",
        tags: ["disputes"],
        security: merchantSecurity,
        params: paymentParams,
        response: { 200: successEnvelope(disputeList), ...errorResponses },
      },
    },
    async (request) => ({
      success: true as const,
      data: { disputes: await disputes.ofPayment(request.merchant.groupId, request.params.id) },
    }),
  );

  app.post(
    "/api/v1/disputes/:disputeId/evidence",
    {
      schema: {
        summary: "Send evidence to the processor; with submit: true, submit it for review",
        description:
          "Each text at most 20,000 characters. Taken only while the dispute is needs_response and before " +
          "evidenceDueBy, otherwise 409 DISPUTE_CLOSED. A refusal by the processor is 502 PROCESSOR_ERROR. " +
          "When the processor does not answer, 503: whether it took the evidence is settled by reading the " +
          "dispute there again, and the dispute shows it.",
        tags: ["disputes"],
        security: merchantSecurity,
        params: disputeParams,
        body: disputeEvidenceBodySchema,
        response: disputeAnswer,
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const { disputeId } = request.params;
      const body = request.body ?? {};
      // The texts stay out of the audit log: they may quote the customer.
      const audit = body.submit ? byApiKey(request, "dispute.evidence_submitted", disputeId, {}) : undefined;
      return { success: true as const, data: await disputes.sendEvidence(groupId, disputeId, body, audit) };
    },
  );

  app.post(
    "/api/v1/disputes/:disputeId/accept",
    {
      schema: {
        summary: "Concede the dispute: the payment becomes dispute_lost",
        description:
          "Taken only while the dispute is needs_response and before evidenceDueBy, otherwise 409 " +
          "DISPUTE_CLOSED. The payment moves to dispute_lost and payment.disputed is sent.",
        tags: ["disputes"],
        security: merchantSecurity,
        params: disputeParams,
        response: disputeAnswer,
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const { disputeId } = request.params;
      const audit = byApiKey(request, "dispute.accepted", disputeId, {});
      return { success: true as const, data: await disputes.accept(groupId, disputeId, audit) };
    },
  );
};

export default disputeRoutes;
