// What the pages print for stored values: statuses, reasons, times and chart axes a person reads.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stackedBarChart } from "../../../src/pages/kit/chart.ts";
import { time } from "../../../src/pages/kit/format.ts";
import { browserOf, statusBadge, statusChangeReason, words } from "../../../src/pages/kit/labels.ts";

const axisOf = (svg: string) =>
  [...svg.matchAll(/<line x1="64" x2="720" y1="([\d.]+)"[^>]*\/>\s*<text[^>]*>([^<]*)<\/text>/g)].map(
    (match) => ({ y: Number(match[1]), label: match[2] }),
  );

const chart = (values: number[], axisUnit: number, axisLabel: (value: number) => string = String) =>
  String(
    stackedBarChart({
      title: "t",
      days: values.map((_, index) => `2026-11-${String(index + 1).padStart(2, "0")}`),
      series: [{ name: "Paid", colour: "#000", values }],
      label: String,
      axisLabel,
      axisUnit,
    }),
  );

describe("page labels", () => {
  it("statuses and stored words read as words; the badge keeps the stored value", () => {
    assert.equal(words("partially_refunded"), "Partially refunded");
    assert.equal(words("dispute_won"), "Dispute won");
    assert.equal(
      String(statusBadge("partially_refunded")),
      '<span class="badge partially_refunded" data-status="partially_refunded">Partially refunded</span>',
    );
  });

  it("a status change's reason says what happened, with the id it names", () => {
    assert.equal(
      String(statusChangeReason("processor_event:evt_test_1a2b")),
      "The processor's event <code>evt_test_1a2b</code>",
    );
    assert.equal(String(statusChangeReason("reconciliation:9c1d")), "Reconciliation run <code>9c1d</code>");
    assert.equal(String(statusChangeReason("merchant_cancel")), "Cancelled by the merchant");
    assert.equal(String(statusChangeReason("something_new")), "Something new");
    assert.equal(
      String(statusChangeReason("processor_event:<b>")),
      "The processor's event <code>&lt;b&gt;</code>",
    );
  });

  it("times carry their seconds and their zone", () => {
    assert.equal(
      String(time("2026-11-27T16:26:05.123Z")),
      '<time datetime="2026-11-27T16:26:05.123Z" title="2026-11-27 16:26:05 UTC">2026-11-27 16:26:05 UTC</time>',
    );
  });

  it("a count axis has a line at each whole number it labels, up to the largest day", () => {
    const axis = axisOf(chart([1, 3, 2], 1));
    assert.deepEqual(
      axis.map((tick) => tick.label),
      ["0", "1", "2", "3"],
    );
    // Evenly spaced, the top line at the top of the plot.
    const gaps = axis.slice(1).map((tick, index) => (axis[index]?.y ?? 0) - tick.y);
    assert.ok(
      gaps.every((gap) => Math.abs(gap - (gaps[0] ?? 0)) < 1e-9),
      JSON.stringify(axis),
    );
    assert.deepEqual(
      axisOf(chart([9], 1)).map((tick) => tick.label),
      ["0", "5", "10"],
    );
    assert.deepEqual(
      axisOf(chart([0, 0], 1)).map((tick) => tick.label),
      ["0", "1"],
    );
  });

  it("a money axis in whole units never shows the same unit twice", () => {
    const units = (cents: number) => String(cents / 100);
    assert.deepEqual(
      axisOf(chart([50], 100, units)).map((tick) => tick.label),
      ["0", "1"],
    );
    assert.deepEqual(
      axisOf(chart([1999], 100, units)).map((tick) => tick.label),
      ["0", "5", "10", "15", "20"],
    );
  });
});

describe("browsers", () => {
  it("a session's browser reads as a name, a version and a system", () => {
    const cases: [string, string][] = [
      [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        "Chrome 131 on Linux",
      ],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86",
        "Edge 131 on Windows",
      ],
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0",
        "Firefox 133 on macOS",
      ],
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        "Safari 18 on iOS",
      ],
      [
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
        "Chrome 131 on Android",
      ],
      [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36",
        "Headless Chrome 131 on Linux",
      ],
      ["curl/8.5.0", "curl 8"],
      ["node", "node"],
      ["", "Unknown browser"],
    ];
    for (const [userAgent, name] of cases) assert.equal(browserOf(userAgent), name, userAgent);
  });
});
