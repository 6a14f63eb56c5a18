import { time } from "../web/format.ts";
import { html } from "../web/html.ts";
import type { AuditRow } from "./store.ts";

/** The audit log as a table, newest first, with a link to older entries. */
export function auditTable(
  rows: readonly AuditRow[],
  olderHref: (beforeId: string) => string,
  showGroup: boolean,
) {
  const last = rows[rows.length - 1];
  return html`<div class="table-wrap"><table id="audit"><thead><tr><th>When</th><th>Who</th><th>What</th><th>On</th><th>Detail</th><th>From</th>${showGroup ? html`<th>Group</th>` : ""}</tr></thead><tbody>
${rows.map(
  (
    row,
  ) => html`<tr><td>${time(row.created_at)}</td><td>${row.actor}</td><td class="mono">${row.action}</td><td class="mono">${row.target ?? ""}</td>
<td class="mono">${row.detail === null ? "" : JSON.stringify(row.detail)}</td><td>${row.address ?? ""}</td>${showGroup ? html`<td class="mono">${row.group_id ?? "—"}</td>` : ""}</tr>`,
)}</tbody></table></div>
${last ? html`<nav class="pager"><a href="${olderHref(last.id)}" rel="next">Older entries</a></nav>` : html`<p class="muted">No entries.</p>`}`;
}

export const auditQuery = {
  type: "object",
  properties: { before: { type: "string", pattern: "^\\d{1,18}$" } },
} as const;
