// Server-drawn SVG bar charts: no script, no inline style (the CSP forbids both), presentation
// attributes only. Each chart carries a text alternative; the figures are also in a table below.
import { type Fragment, html } from "./html.ts";

/** Statuses in stacking order, with their colours (the stylesheet's legend uses the same list). */
export const CHART_SERIES = [
  { status: "succeeded", colour: "#2e9e53" },
  { status: "partially_refunded", colour: "#6d7fe0" },
  { status: "refunded", colour: "#3730a3" },
  { status: "disputed", colour: "#e07b28" },
  { status: "dispute_won", colour: "#8fbf4f" },
  { status: "dispute_lost", colour: "#8a3b00" },
  { status: "processing", colour: "#e0b13a" },
  { status: "pending", colour: "#f2d88a" },
  { status: "failed", colour: "#d2483f" },
  { status: "cancelled", colour: "#9aa3ad" },
  { status: "expired", colour: "#c9ced4" },
] as const;

interface ChartSeries {
  name: string;
  colour: string;
  values: readonly number[];
}

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 64;
const BOTTOM = 24;
const TOP = 10;

/** 1, 2, 5 × 10^n at or above `value`, so the axis reads in round numbers. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** Grid lines at round steps (1, 2 or 5 × 10^n, never finer than `unit`) from 0 to the top. */
function axisSteps(max: number, unit: number): number[] {
  const step = Math.max(unit, niceCeiling(max / 4));
  const top = Math.max(step, Math.ceil(max / step) * step);
  return Array.from({ length: Math.round(top / step) + 1 }, (_, index) => index * step);
}

/** Stacked daily bars; `label` formats an axis value (counts, or money in major units). */
export function stackedBarChart(options: {
  title: string;
  days: readonly string[];
  series: readonly ChartSeries[];
  /** A bar's value in its tooltip, e.g. "12.50 USD". */
  label: (value: number) => string;
  /** An axis value, short enough for the margin, e.g. "1,200". */
  axisLabel: (value: number) => string;
  /** The finest step the axis may show: 1 for counts, 100 for cents shown in whole units. */
  axisUnit: number;
}): Fragment {
  const { days, series } = options;
  const totals = days.map((_, day) => series.reduce((sum, one) => sum + (one.values[day] ?? 0), 0));
  const steps = axisSteps(Math.max(0, ...totals), options.axisUnit);
  const top = steps.at(-1) as number;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = (WIDTH - LEFT) / Math.max(days.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const gridLines = steps.map(
    (value) => html`<line x1="${LEFT}" x2="${WIDTH}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e7eb"/>
<text x="${LEFT - 6}" y="${y(value) + 4}" text-anchor="end">${options.axisLabel(value)}</text>`,
  );
  const bars = days.map((day, index) => {
    let base = 0;
    const x = LEFT + index * slot + (slot - barWidth) / 2;
    return series.map((one) => {
      const value = one.values[index] ?? 0;
      if (value === 0) return "";
      const rect = html`<rect x="${x.toFixed(1)}" y="${y(base + value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${((value / top) * plotHeight).toFixed(1)}" fill="${one.colour}"><title>${day}: ${one.name} ${options.label(value)}</title></rect>`;
      base += value;
      return rect;
    });
  });
  const tickEvery = Math.ceil(days.length / 6);
  const ticks = days.map((day, index) =>
    index % tickEvery === 0
      ? html`<text x="${(LEFT + index * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${day.slice(5)}</text>`
      : "",
  );
  const summary = `${options.title}: ${totals.reduce((a, b) => a + b, 0) === 0 ? "nothing yet" : `largest day ${options.label(Math.max(...totals))}`}`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${summary}"><title>${summary}</title>
${gridLines}${bars}${ticks}</svg>
<ul class="legend">${series
    .filter((one) => one.values.some((value) => value > 0))
    .map(
      (one) =>
        html`<li><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${one.colour}"/></svg> ${one.name}</li>`,
    )}</ul>`;
}
