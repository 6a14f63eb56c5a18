// `npm run screenshots:dashboard`: the Grafana dashboard's queries (deploy/grafana/checkout-service.json)
// drawn by Debian's Prometheus, for docs/operations.md (Grafana itself is not packaged for Debian).
// Starts the service on a fresh embedded database with the sandbox, has a Prometheus scrape it every
// second, and drives three minutes of traffic: creates, payments, a webhook endpoint that fails a
// share of its deliveries, and a Stripe outage in the middle (failovers to Square, the breaker
// open). Then Chromium saves one page of graphs a dashboard row into docs/images/. Loopback only.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import { parse } from "yaml";
import { loadConfig } from "../src/config/config.ts";
import { startService } from "../src/server/lifecycle.ts";

const OUT = "docs/images";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? "/usr/bin/prometheus";
const PHASE_MS = Number(process.env.PHASE_SECONDS ?? 60) * 1000;
const CREATES_PER_SECOND = 12;

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const receiver = createServer((request, response) => {
  // One endpoint in five keeps failing, so attempt outcomes and the queue have something to show.
  if (request.url === "/flaky") response.writeHead(503).end();
  else response.writeHead(200).end();
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const dir = await mkdtemp(join(tmpdir(), "checkout-dashboard-"));
const adminToken = `adm_${randomBytes(24).toString("base64url")}`;
const running = await startService(
  loadConfig({
    PORT: "0",
    SANDBOX_PORT: "0",
    DATA_DIR: join(dir, "data"),
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: "error",
    ALLOWED_PRIVATE_HOSTS: new URL(receiverUrl).host,
    WEBHOOK_RETRY_DELAYS: "2,5,10",
    PROCESSOR_BREAKER_SECONDS: "20",
    // The traffic below is one shop's, above the per-key limit a shop gets by default.
    RATE_LIMIT_MAX: "100000",
  }),
);
const { url, sandboxUrl } = running;
if (!sandboxUrl) throw new Error("the sandbox did not start: the traffic needs it");

const config = parse(await readFile("deploy/prometheus/prometheus.yml", "utf8"));
config.global = { scrape_interval: "1s", evaluation_interval: "1s" };
config.scrape_configs[0].static_configs = [{ targets: [new URL(url).host] }];
delete config.rule_files;
await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config));
// A port free a moment ago: taken, noted, given back, then Prometheus's.
const probe = createServer();
await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
const prometheusPort = (probe.address() as AddressInfo).port;
await new Promise((resolve) => probe.close(resolve));
const prometheus = spawn(
  PROMETHEUS,
  [
    `--config.file=${join(dir, "prometheus.yml")}`,
    `--storage.tsdb.path=${join(dir, "prometheus")}`,
    `--web.listen-address=127.0.0.1:${prometheusPort}`,
  ],
  { stdio: "ignore" },
);

async function send(base: string, method: string, path: string, body?: unknown, headers = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as { data?: never } };
}

try {
  const group = (
    await send(
      url,
      "POST",
      "/admin/v1/groups",
      { name: "Harbour Coffee Roasters", safeSites: [{ name: "Main", url: "https://pay.harbour.example" }] },
      { authorization: `Bearer ${adminToken}` },
    )
  ).body.data as unknown as { publicKey: string; secretKey: string };
  const keys = { "x-public-key": group.publicKey, "x-secret-key": group.secretKey };

  let made = 0;
  const traffic = async (until: number) => {
    while (Date.now() < until) {
      const started = Date.now();
      const index = made++;
      const created = await send(
        url,
        "POST",
        "/api/v1/payments/create",
        {
          amount: 900 + ((index * 7919) % 12000),
          currency: "usd",
          customerEmail: "ana@example.com",
          successUrl: "https://harbour.example/thanks",
          cancelUrl: "https://harbour.example/cart",
          webhookUrl: `${receiverUrl}/${index % 5 === 0 ? "flaky" : "hooks"}`,
        },
        keys,
      );
      const sessionId = (created.body.data as { sessionId?: string } | undefined)?.sessionId;
      if (sessionId && index % 4 !== 3)
        await send(sandboxUrl, "POST", `/sandbox/sessions/${sessionId}/complete`, {
          outcome: index % 9 === 0 ? "failed" : "succeeded",
        });
      await send(url, "GET", `/api/v1/payments?limit=10`, undefined, keys);
      await sleep(Math.max(0, 1000 / CREATES_PER_SECOND - (Date.now() - started)));
    }
  };
  await traffic(Date.now() + PHASE_MS);
  await send(sandboxUrl, "POST", "/sandbox/faults", { processor: "stripe", checkouts: { mode: "outage" } });
  await traffic(Date.now() + PHASE_MS);
  await send(sandboxUrl, "DELETE", "/sandbox/faults");
  await traffic(Date.now() + PHASE_MS);
  await sleep(3000);

  const dashboard = JSON.parse(await readFile("deploy/grafana/checkout-service.json", "utf8")) as {
    panels: Panel[];
  };
  // Each dashboard row's queries on one Prometheus graph page, with Grafana's own variable given
  // the value Grafana would at this scrape interval.
  const rows: { name: string; queries: string[] }[] = [];
  for (const panel of dashboard.panels) {
    if (panel.type === "row") rows.push({ name: panel.title, queries: [] });
    else rows.at(-1)?.queries.push(...(panel.targets ?? []).map((target) => target.expr));
  }
  const range = `${Math.ceil((PHASE_MS * 3) / 60_000) + 1}m`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const written: string[] = [];
  for (const row of rows) {
    const query = row.queries
      .map((expr, index) =>
        [
          `g${index}.expr=${encodeURIComponent(expr.replaceAll("$__rate_interval", "15s"))}`,
          `g${index}.tab=0`,
          `g${index}.range_input=${range}`,
        ].join("&"),
      )
      .join("&");
    await page.goto(`http://127.0.0.1:${prometheusPort}/graph?${query}`);
    await page.waitForLoadState("networkidle");
    // The navigation bar is fixed: on a full-page shot it would sit across the middle.
    await page.addStyleTag({ content: "nav.navbar { display: none !important; }" });
    await sleep(1500);
    const file = `${OUT}/metrics-${row.name.toLowerCase().replace(/[^a-z]+/g, "-")}.png`;
    await page.screenshot({ path: file, fullPage: true });
    written.push(file);
  }
  await browser.close();
  process.stdout.write(`${made} creates; wrote ${written.join(", ")}\n`);
} finally {
  prometheus.kill("SIGTERM");
  await new Promise((resolve) => prometheus.once("exit", resolve));
  await running.close();
  receiver.close();
  await rm(dir, { recursive: true, force: true });
}
