import type { FastifyPluginAsync } from "fastify";
import { PAID_STATUSES } from "../../payments/core/status.ts";
import type { PaymentQueries } from "../../payments/queries/service.ts";
import { money } from "../../platform/format/money.ts";
import { CHART_SERIES, stackedBarChart } from "../kit/chart.ts";
import { html } from "../kit/html.ts";
import { paymentStatusWord } from "../kit/labels.ts";
import { dashboardPage, merchantOf } from "./common.ts";

const DAYS = 30;

const lastDays = (count: number): string[] => {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  return Array.from({ length: count }, (_, index) =>
    new Date(today - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
};

/** /dashboard: the last 30 days at a glance: volume, counts by status, conversion. */
const overviewPage: FastifyPluginAsync<{ queries: PaymentQueries }> = async (app, { queries }) => {
  app.get("/dashboard", async (request, reply) => {
    const principal = merchantOf(request);
    const days = lastDays(DAYS);
    const rows = await queries.dailyTotals(principal.groupId, new Date(`${days[0]}T00:00:00Z`));
    const dayIndex = new Map(days.map((day, index) => [day, index]));
    const currencies = [...new Set(rows.map((row) => row.currency))].sort();

    const counts = CHART_SERIES.map((series) => ({
      name: paymentStatusWord(series.status),
      colour: series.colour,
      values: days.map(() => 0),
    }));
    const volume = new Map(currencies.map((currency) => [currency, days.map(() => 0)]));
    let created = 0;
    let paid = 0;
    const paidAmount = new Map<string, number>();
    for (const row of rows) {
      const index = dayIndex.get(row.day);
      if (index === undefined) continue;
      const series = counts[CHART_SERIES.findIndex((one) => one.status === row.status)];
      if (series) series.values[index] = (series.values[index] ?? 0) + row.count;
      created += row.count;
      if (PAID_STATUSES.has(row.status)) {
        paid += row.count;
        const daily = volume.get(row.currency) as number[];
        daily[index] = (daily[index] ?? 0) + row.amount;
        paidAmount.set(row.currency, (paidAmount.get(row.currency) ?? 0) + row.amount);
      }
    }
    const conversion = created === 0 ? "—" : `${((paid / created) * 100).toFixed(1)} %`;
    const volumeCharts = currencies
      .filter((currency) => (paidAmount.get(currency) ?? 0) > 0)
      .map(
        (currency) => html`<section class="card"><h2>Paid volume, ${currency.toUpperCase()}</h2>
${stackedBarChart({
  title: `Paid volume per day in ${currency.toUpperCase()}`,
  days,
  series: [{ name: "Paid", colour: "#3454d1", values: volume.get(currency) ?? [] }],
  label: (cents) => money(Math.round(cents), currency),
  axisLabel: (cents) => Math.round(cents / 100).toLocaleString("en-US"),
  axisUnit: 100,
})}</section>`,
      );

    return dashboardPage(
      request,
      reply,
      "Overview",
      html`<h1>Last ${DAYS} days</h1>
<div class="grid">
<div class="card stat"><div class="value">${created}</div><div class="label">payments created</div></div>
<div class="card stat"><div class="value">${paid}</div><div class="label">paid</div></div>
<div class="card stat"><div class="value" id="conversion">${conversion}</div><div class="label">conversion (paid ÷ created)</div></div>
${[...paidAmount].map(([currency, cents]) => html`<div class="card stat"><div class="value">${money(cents, currency)}</div><div class="label">paid volume</div></div>`)}
</div>
${volumeCharts.length > 0 ? volumeCharts : html`<p class="card muted">No paid payments in the last ${DAYS} days yet.</p>`}
<section class="card"><h2>Payments by status per day</h2>
${stackedBarChart({ title: "Payments created per day by status", days, series: counts, label: String, axisLabel: String, axisUnit: 1 })}
</section>
<p><a href="/dashboard/payments">All payments</a> · Days are UTC.</p>`,
    );
  });
};

export default overviewPage;
