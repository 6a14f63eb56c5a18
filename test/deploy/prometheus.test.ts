// The alert rules (deploy/prometheus/alerts.yml) and the Grafana dashboard
// (deploy/grafana/checkout-service.json): the rules' unit tests pass under Debian's promtool, every
// metric either reads exists on /metrics, a real Prometheus scraping a running service sees a
// processor's breaker open and fires the alert, and evaluates every panel's query.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { occupiedPort } from "../helpers/process.ts";
import { needsBinary } from "../helpers/requirements.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const run = promisify(execFile);
const PROMTOOL = "/usr/bin/promtool";
const PROMETHEUS = "/usr/bin/prometheus";
const INSTALL = "install Debian's prometheus package (apt-get install prometheus)";

/** Every metric name a PromQL expression reads (identifiers followed by a selector, a range or a space). */
export function metricsIn(expression: string): string[] {
  const withoutStrings = expression.replace(/"[^"]*"/g, '""');
  const words = withoutStrings.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  const keywords = new Set([
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "or",
    "and",
    "unless",
    "bool",
    "offset",
  ]);
  return [
    ...new Set(
      words.filter(
        (word) =>
          word.includes("_") &&
          !keywords.has(word) &&
          !word.startsWith("__") &&
          !/^(sum|max|min|avg|count|rate|increase|absent|histogram_quantile|humanize\w*)$/.test(word) &&
          !/^(status_code|processor|outcome|instance|route|method|le)$/.test(word),
      ),
    ),
  ];
}

/** The dashboard's queries, with Grafana's own variable given a value Prometheus takes. */
const dashboardQueries = async () => {
  const dashboard = JSON.parse(await readFile("deploy/grafana/checkout-service.json", "utf8")) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      panel: panel.title,
      expr: target.expr.replaceAll("$__rate_interval", "1m"),
    })),
  );
};

const rulesFile = async () =>
  parse(await readFile("deploy/prometheus/alerts.yml", "utf8")) as {
    groups: { rules: { alert: string; expr: string; for?: string }[] }[];
  };

describe("alert rules", () => {
  it("pass promtool's check and their unit tests", { skip: needsBinary(PROMTOOL, INSTALL) }, async () => {
    await run(PROMTOOL, ["check", "rules", "deploy/prometheus/alerts.yml"]);
    const { stdout } = await run(PROMTOOL, ["test", "rules", "deploy/prometheus/alerts-test.yml"]);
    assert.match(stdout, /SUCCESS/);
    const tested = await readFile("deploy/prometheus/alerts-test.yml", "utf8");
    for (const group of (await rulesFile()).groups) {
      for (const rule of group.rules)
        assert.ok(tested.includes(`alertname: ${rule.alert}`), `${rule.alert} has a test`);
    }
  });

  describe("against a running service", () => {
    let service: TestService;
    let group: TestGroup;
    before(async () => {
      service = await startTestService({ PROCESSOR_BREAKER_FAILURES: "1", PROCESSOR_BREAKER_SECONDS: "600" });
      group = await service.createGroup();
    });
    after(() => service.close());

    it("reads only metrics the service exposes", async () => {
      // One failover and one webhook attempt, so the labelled series exist too.
      const exposed = await (await service.request("GET", "/metrics")).body;
      const names = new Set(
        String(exposed)
          .split("\n")
          .filter((line) => line.startsWith("# TYPE "))
          .flatMap((line) => {
            const [, , name = "", type] = line.split(" ");
            return type === "histogram" ? [name, `${name}_count`, `${name}_sum`, `${name}_bucket`] : [name];
          }),
      );
      const read = [
        ...(await rulesFile()).groups.flatMap((g) => g.rules.flatMap((rule) => metricsIn(rule.expr))),
        ...(await dashboardQueries()).flatMap((query) => metricsIn(query.expr)),
      ];
      assert.ok(read.length >= 20);
      // The replica's gauges exist only with DATABASE_READ_URL: checked by name against the code.
      const replicaOnly = ["checkout_database_replica_lag_seconds", "checkout_database_read_max_lag_seconds"];
      const source = await readFile("src/platform/metrics/metrics.ts", "utf8");
      for (const name of read) {
        if (replicaOnly.includes(name)) assert.ok(source.includes(`"${name}"`), name);
        else assert.ok(names.has(name), `${name} is not on /metrics`);
      }
      assert.ok(group.groupId);
    });

    it("a real Prometheus fires CheckoutProcessorSkipped once a processor's breaker opens", {
      skip: needsBinary(PROMETHEUS, INSTALL),
      timeout: 60_000,
    }, async () => {
      const dir = await mkdtemp(join(tmpdir(), "checkout-prometheus-"));
      // A port free a moment ago: taken, noted, given back, then Prometheus's.
      const taken = await occupiedPort();
      const { port } = taken;
      await new Promise((resolve) => taken.server.close(resolve));
      // The shipped rules, with their `for` shortened so the test need not wait minutes.
      const rules = (await readFile("deploy/prometheus/alerts.yml", "utf8")).replace(/for: \d+m/g, "for: 1s");
      await writeFile(join(dir, "alerts.yml"), rules);
      const config = parse(await readFile("deploy/prometheus/prometheus.yml", "utf8"));
      config.global = { scrape_interval: "1s", evaluation_interval: "1s" };
      config.scrape_configs[0].static_configs = [{ targets: [new URL(service.url).host] }];
      await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config));
      const prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: "ignore" },
      );
      try {
        const api = `http://127.0.0.1:${port}/api/v1`;
        const firing = async (name: string) => {
          const answer = (await (await fetch(`${api}/alerts`)).json()) as {
            data: { alerts: { labels: Record<string, string>; state: string }[] };
          };
          return answer.data.alerts.filter(
            (alert) => alert.labels.alertname === name && alert.state === "firing",
          );
        };
        await waitFor(
          async () => ((await fetch(`${api}/targets`).catch(() => undefined))?.ok ? true : undefined),
          20_000,
          "Prometheus up",
        );
        assert.deepEqual(await firing("CheckoutProcessorSkipped"), []);
        await service.sandboxPost("/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
        await service.createPayment(group);
        assert.equal(
          (await service.request("GET", "/health")).body.checks.processors.stripe.status,
          "skipped",
          "the breaker is open",
        );
        const [alert] = await waitFor(
          async () => {
            const alerts = await firing("CheckoutProcessorSkipped");
            return alerts.length > 0 ? alerts : undefined;
          },
          30_000,
          "the alert firing",
        );
        assert.equal(alert?.labels.processor, "stripe");
        assert.equal(alert?.labels.severity, "page");
      } finally {
        prometheus.kill("SIGTERM");
        await new Promise((resolve) => prometheus.once("exit", resolve));
        await service.sandboxDelete("/sandbox/faults");
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
