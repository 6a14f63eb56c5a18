import type { JsonSchemaToTsProvider } from "@fastify/type-provider-json-schema-to-ts";
import type { FastifyPluginAsync } from "fastify";
import { groupParams } from "../../merchants/routes/schemas.ts";
import { adminSecurity, errorResponses, successEnvelope } from "../../platform/http/schemas.ts";
import type { Accounts } from "../module.ts";
import { ROLES } from "../principal.ts";

const email = { type: "string", format: "email", minLength: 3, maxLength: 254 } as const;
const inviteUrl = { type: "string", description: "Single use, valid 72 hours" } as const;
const ADMIN = { actor: "admin-token" };

/** Admin API: invite merchant users and operators; each answer carries the invite link. */
const accountAdminRoutes: FastifyPluginAsync<{ accounts: Accounts }> = async (scope, { accounts }) => {
  const app = scope.withTypeProvider<JsonSchemaToTsProvider>();

  app.post(
    "/admin/v1/groups/:groupId/users",
    {
      schema: {
        summary: "Invite a dashboard user to a group",
        tags: ["admin"],
        security: adminSecurity,
        params: groupParams,
        body: {
          type: "object",
          required: ["email", "role"],
          additionalProperties: false,
          properties: { email, role: { type: "string", enum: [...ROLES] } },
        } as const,
        response: {
          201: successEnvelope({
            type: "object",
            required: ["userId", "email", "role", "inviteUrl"],
            properties: {
              userId: { type: "string" },
              email: { type: "string" },
              role: { type: "string" },
              inviteUrl,
            },
          } as const),
          ...errorResponses,
          409: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const { email: address, role } = request.body;
      const data = await accounts.invites.inviteUser(request.params.groupId, address, role, {
        ...ADMIN,
        address: request.ip,
      });
      return reply.code(201).send({ success: true, data });
    },
  );

  app.post(
    "/admin/v1/operators",
    {
      schema: {
        summary: "Invite an operator to the console",
        tags: ["admin"],
        security: adminSecurity,
        body: {
          type: "object",
          required: ["email"],
          additionalProperties: false,
          properties: { email },
        } as const,
        response: {
          201: successEnvelope({
            type: "object",
            required: ["operatorId", "email", "inviteUrl"],
            properties: { operatorId: { type: "string" }, email: { type: "string" }, inviteUrl },
          } as const),
          ...errorResponses,
          409: { $ref: "ErrorResponse#" },
        },
      },
    },
    async (request, reply) => {
      const data = await accounts.invites.inviteOperator(request.body.email, {
        ...ADMIN,
        address: request.ip,
      });
      return reply.code(201).send({ success: true, data });
    },
  );

  app.post(
    "/admin/v1/accounts/password-resets",
    {
      schema: {
        summary: "Issue a password reset link for a dashboard user or an operator",
        description:
          "Single use, valid one hour; earlier reset links of the account stop working. Using it sets the " +
          "password, ends every session of the account and signs in. With SMTP_URL set it is also e-mailed.",
        tags: ["admin"],
        security: adminSecurity,
        body: {
          type: "object",
          required: ["email", "audience"],
          additionalProperties: false,
          properties: { email, audience: { type: "string", enum: ["dashboard", "operator"] } },
        } as const,
        response: {
          201: successEnvelope({
            type: "object",
            required: ["resetUrl", "expiresAt"],
            properties: {
              resetUrl: { type: "string", description: "Single use, valid one hour" },
              expiresAt: { type: "string", format: "date-time" },
            },
          } as const),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const kind = request.body.audience === "dashboard" ? "merchant" : "operator";
      const data = await accounts.passwords.issuePasswordReset(kind, request.body.email, {
        ...ADMIN,
        address: request.ip,
      });
      return reply.code(201).send({ success: true, data });
    },
  );
};

export default accountAdminRoutes;
