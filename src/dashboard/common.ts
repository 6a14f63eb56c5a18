import type { FastifyReply, FastifyRequest } from "fastify";
import { type AuditContext, actorOf, type Principal } from "../accounts/service.ts";
import { type Fragment, html } from "../web/html.ts";
import { layout, sendHtml } from "../web/layout.ts";

/** The guard has run: a merchant user of one group. */
export function merchantOf(request: FastifyRequest): Principal & { groupId: string } {
  return request.principal as Principal & { groupId: string };
}

export const auditContext = (request: FastifyRequest): AuditContext => ({
  actor: actorOf(request.principal as Principal),
  address: request.ip,
});

export const dashboardPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: Fragment,
  statusCode = 200,
) => sendHtml(reply, statusCode, layout(request, reply, { audience: "dashboard", title, body }));

export const statusBadge = (status: string) =>
  html`<span class="badge ${status}">${status.replace("_", " ")}</span>`;
