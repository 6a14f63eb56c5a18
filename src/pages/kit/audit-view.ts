import type { FastifyReply, FastifyRequest } from "fastify";
import type { Accounts } from "../../accounts/module.ts";
import type { AuditRow } from "../../platform/audit/store.ts";
import { NUMERIC_ID_PATTERN } from "../../platform/http/schemas.ts";
import { time } from "./format.ts";
import { html } from "./html.ts";
import { type Audience, pageSender } from "./layout.ts";

const AUDIT_PAGE = 100;

/** The audit log as a table, newest first, with a link to older entries when there may be some. */
function auditTable(rows: readonly AuditRow[], olderHref: (beforeId: string) => string, showGroup: boolean) {
  const last = rows.length === AUDIT_PAGE ? rows[rows.length - 1] : undefined;
  return html`<div class="table-wrap"><table id="audit"><thead><tr><th>When</th><th>Who</th><th>What</th><th>On</th><th>Detail</th><th>From</th>${showGroup ? html`<th>Group</th>` : ""}</tr></thead><tbody>
${rows.map(
  (
    row,
  ) => html`<tr data-id="${row.id}"><td>${time(row.created_at)}</td><td>${row.actor}</td><td class="mono">${row.action}</td><td class="mono">${row.target ?? ""}</td>
<td class="mono">${row.detail === null ? "" : JSON.stringify(row.detail)}</td><td>${row.address ?? ""}</td>${showGroup ? html`<td class="mono">${row.group_id ?? "—"}</td>` : ""}</tr>`,
)}</tbody></table></div>
${rows.length === 0 ? html`<p class="muted">No entries.</p>` : ""}
${last ? html`<nav class="pager"><a href="${olderHref(last.id)}" rel="next">Older entries</a></nav>` : ""}`;
}

export const auditQuery = {
  type: "object",
  properties: { before: { type: "string", pattern: NUMERIC_ID_PATTERN } },
} as const;

/** The audit log page: one group's entries for its owners, every entry for operators. */
export async function sendAuditLog(
  accounts: Accounts,
  request: FastifyRequest,
  reply: FastifyReply,
  audience: Audience,
  groupId: string | null,
) {
  const rows = await accounts.members.auditLog(
    groupId,
    (request.query as { before?: string }).before ?? null,
    AUDIT_PAGE,
  );
  const table = auditTable(rows, (before) => `/${audience}/audit?before=${before}`, groupId === null);
  return pageSender(audience)(request, reply, "Audit log", html`<h1>Audit log</h1>${table}`);
}
