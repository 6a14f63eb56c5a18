import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { UUID_PATTERN_SOURCE } from "../../platform/format/uuid.ts";
import {
  errorResponses,
  merchantSecurity,
  PAGE_QUERY_PROPERTIES,
  pageSchema,
  successEnvelope,
} from "../../platform/http/schemas.ts";
import { storableTime } from "../../platform/http/window.ts";
import { PAYMENT_STATUSES, type PaymentStatus } from "../core/status.ts";
import type { PaymentQueries } from "../queries/service.ts";
import { paymentResourceSchema, toPaymentResource } from "../resource.ts";

const DEFAULT_LIMIT = 20;

const listQuery = {
  type: "object",
  properties: {
    status: { type: "string", enum: [...PAYMENT_STATUSES] },
    from: { type: "string", format: "date-time", description: "ISO 8601; createdAt at or after (inclusive)" },
    to: { type: "string", format: "date-time", description: "ISO 8601; createdAt before (exclusive)" },
    ...PAGE_QUERY_PROPERTIES,
    paymentLinkId: {
      type: "string",
      pattern: UUID_PATTERN_SOURCE,
      description: "Only the payments made through this payment link",
    },
  },
} as const;

/** GET /api/v1/payments, the group's payments newest first, a page at a time. */
const listPaymentsRoute: FastifyPluginAsync<{ queries: PaymentQueries }> = async (scope, { queries }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();
  app.get(
    "/api/v1/payments",
    {
      schema: {
        summary: "List payments, newest first",
        tags: ["payments"],
        security: merchantSecurity,
        querystring: listQuery,
        response: {
          200: successEnvelope(pageSchema("payments", paymentResourceSchema)),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { groupId } = request.merchant;
      const query = request.query;
      const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
      if (query.after !== undefined) {
        // Only a cursor this API issued: a payment of the caller's group.
        await queries.get(groupId, query.after).catch((error: unknown) => {
          if (!(error instanceof DomainError)) throw error;
          throw new DomainError("INVALID_REQUEST", "after is not a cursor this API issued");
        });
      }
      const from = query.from === undefined ? undefined : storableTime(query.from, "from");
      const to = query.to === undefined ? undefined : storableTime(query.to, "to");
      const rows = await queries.list(
        groupId,
        {
          status: query.status as PaymentStatus | undefined,
          from,
          to,
          afterId: query.after,
          paymentLinkId: query.paymentLinkId,
        },
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return {
        success: true as const,
        data: {
          payments: page.map(toPaymentResource),
          hasMore,
          nextCursor: hasMore ? (page[page.length - 1]?.id ?? null) : null,
        },
      };
    },
  );
};

export default listPaymentsRoute;
