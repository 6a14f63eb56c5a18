// A group's processor routes on the console as tables: the routes in force, and a form of one row
// per route (a currency, then the processors in the order tried) that works without JavaScript.
import type { FastifyReply } from "fastify";
import type { ProcessorRoute } from "../../payments/routing/service.ts";
import { CURRENCIES } from "../../platform/format/money.ts";
import { PROCESSOR_NAMES, processorTitle } from "../../processor/catalog.ts";
import { formBody } from "../kit/forms.ts";
import { html } from "../kit/html.ts";
import { csrfField } from "../kit/layout.ts";

/** As many rows as the service keeps routes for a group. */
const FORM_ROWS = 10;
/** Rows offered beyond the group's routes, to add one. */
const SPARE_ROWS = 2;

const currencyField = (row: number) => `route${row}_currency`;
const processorField = (row: number, position: number) => `route${row}_processor${position}`;

const choice = (values: readonly string[]) => ({ type: "string", enum: ["", ...values] }) as const;

export const routingTableForm = formBody(
  Object.fromEntries(
    Array.from({ length: FORM_ROWS }, (_, row) => [
      [currencyField(row), choice(CURRENCIES)],
      ...PROCESSOR_NAMES.map((_, position) => [processorField(row, position), choice(PROCESSOR_NAMES)]),
    ]).flat(),
  ) as Record<string, ReturnType<typeof choice>>,
  [],
);

/** Thrown for a row that names a currency but no processor: saving it would drop the row unseen. */
export class RouteRowError extends Error {}

/** The routes the form's rows name, in order; a row with neither currency nor processor is empty. */
export function routesFromForm(
  body: Record<string, string | undefined>,
): { currency?: string; processors: string[] }[] {
  const routes: { currency?: string; processors: string[] }[] = [];
  for (let row = 0; row < FORM_ROWS; row++) {
    const currency = body[currencyField(row)] || undefined;
    const processors = PROCESSOR_NAMES.map((_, position) => body[processorField(row, position)] ?? "").filter(
      Boolean,
    );
    if (processors.length === 0) {
      if (currency)
        throw new RouteRowError(`Route ${row + 1} (${currency.toUpperCase()}) names no processor.`);
      continue;
    }
    routes.push({ ...(currency && { currency }), processors });
  }
  return routes;
}

const processorsInOrder = (names: readonly string[]) => names.map(processorTitle).join(" → ");

/** The routes in force, or the default route a group without routes follows. */
export function routingTable(routes: readonly ProcessorRoute[], defaultRoute: readonly string[]) {
  if (routes.length === 0) {
    return html`<p id="routing">Every payment follows the installation's default route: <strong>${processorsInOrder(defaultRoute)}</strong>.</p>`;
  }
  return html`<div class="table-wrap"><table id="routing"><caption class="skip">Routes, the first that matches a payment applies</caption>
<thead><tr><th>#</th><th>Payments in</th><th>Tried in order</th></tr></thead><tbody>
${routes.map(
  (route, index) =>
    html`<tr><td>${index + 1}</td><td>${route.currency ? route.currency.toUpperCase() : "any currency"}</td><td>${processorsInOrder(route.processors)}</td></tr>`,
)}</tbody></table></div>`;
}

const options = (
  values: readonly string[],
  chosen: string | undefined,
  label: (value: string) => string,
  none: string,
) =>
  html`<option value="">${none}</option>${values.map(
    (value) =>
      html`<option value="${value}"${value === chosen ? html` selected` : ""}>${label(value)}</option>`,
  )}`;

/** The form: one row per route and two spare ones; empty rows are ignored, all rows empty is the default. */
export function routingEditor(reply: FastifyReply, action: string, routes: readonly ProcessorRoute[]) {
  const rows = Math.min(FORM_ROWS, routes.length + SPARE_ROWS);
  return html`<form method="post" action="${action}" class="card" id="routing-form">${csrfField(reply)}
<div class="table-wrap"><table><caption class="skip">Edit the routes</caption>
<thead><tr><th>#</th><th>Payments in</th>${PROCESSOR_NAMES.map((_, position) => html`<th>${position === 0 ? "Try first" : "Then"}</th>`)}</tr></thead><tbody>
${Array.from({ length: rows }, (_, row) => {
  const route = routes[row];
  return html`<tr><td>${row + 1}</td><td><select name="${currencyField(row)}" aria-label="Route ${row + 1}: currency">${options(CURRENCIES, route?.currency, (code) => code.toUpperCase(), "any currency")}</select></td>
${PROCESSOR_NAMES.map(
  (_, position) =>
    html`<td><select name="${processorField(row, position)}" aria-label="Route ${row + 1}: processor ${position + 1}">${options(PROCESSOR_NAMES, route?.processors[position], processorTitle, "—")}</select></td>`,
)}</tr>`;
})}</tbody></table></div>
<p class="muted">The first route whose currency matches a payment applies; "any currency" matches every payment. Leave every row empty to follow the default route.</p>
<p><button type="submit">Save routing</button></p></form>`;
}
