// Who did what, from where: the audit entry of a signed-in person's request.
import type { FastifyRequest } from "fastify";
import { type AuditContext, actorOf, type Principal } from "../../accounts/principal.ts";
import type { AuditEntry } from "../../platform/audit/store.ts";

export const auditContext = (request: FastifyRequest): AuditContext => ({
  actor: actorOf(request.principal as Principal),
  address: request.ip,
});

/** An audit entry for what the signed-in account did, from this request's address. */
export const auditBy = (
  request: FastifyRequest,
  groupId: string | null,
  action: string,
  target: string | null = null,
  detail: unknown = null,
): AuditEntry => ({ groupId, action, target, detail, ...auditContext(request) });
