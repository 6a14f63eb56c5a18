// Traces (docs/operations.md, "Traces"): the service in its own process, exporting over OTLP/HTTP
// to a receiver that decodes protobuf and JSON. A create is one trace continued from the caller's
// traceparent (server span, statement spans, the processor's client span); a webhook attempt is a
// trace of its own linked to the request that queued it; no attribute holds a key, a secret, an
// e-mail or a name; log lines name their trace.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { createTestDatabase, directUrlOf, type TestDatabase, throughPooler } from "../helpers/database.ts";
import { OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.ts";
import { logLines, startProcess } from "../helpers/process.ts";
import { Receiver } from "../helpers/receiver.ts";
import { waitFor } from "../helpers/wait.ts";

const EMAIL = "Ottilie.Tracewell@Example.NET";
const NAME = "Ottilie Tracewell";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const SERVER = 2;
const CLIENT = 3;

describe("traces over OTLP/HTTP", () => {
  let otlp: OtlpReceiver;
  let otlpUrl: string;
  let hooks: Receiver;
  let dataDir: string;
  const databases: TestDatabase[] = [];
  before(async () => {
    otlp = new OtlpReceiver();
    otlpUrl = await otlp.start();
    hooks = new Receiver({ "/hook": () => 200 });
    await hooks.start();
    dataDir = await mkdtemp(join(tmpdir(), "checkout-traces-"));
  });
  after(async () => {
    await otlp.stop();
    await hooks.stop();
    for (const database of databases) await database.db.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The service with traces on, with a database of its own; on PostgreSQL when the suite is. */
  async function tracedService(protocol: "http/protobuf" | "http/json") {
    const database = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    if (database) databases.push(database);
    const service = startProcess({
      DATA_DIR: join(dataDir, protocol.replace("/", "-")),
      ...(database?.url && { DATABASE_URL: database.url }),
      ...(database?.url &&
        throughPooler && {
          DATABASE_POOL_MODE: "transaction",
          DATABASE_LISTEN_URL: directUrlOf(database.url) ?? "",
        }),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
      ALLOWED_PRIVATE_HOSTS: new URL(hooks.url).host,
      LOG_LEVEL: "debug",
    });
    const url = await service.started;
    const { stdout } = service.output();
    const keys = {
      "x-public-key": /Public key: +(\S+)/.exec(stdout)?.[1] ?? "",
      "x-secret-key": /Secret key: +(\S+)/.exec(stdout)?.[1] ?? "",
    };
    const webhookSecret = /Webhook secret: +(\S+)/.exec(stdout)?.[1] ?? "";
    const sandboxUrl = /"sandbox":"(http:\/\/[^"]+)"/.exec(stdout)?.[1] ?? "";
    const create = (headers: Record<string, string> = {}) =>
      fetch(`${url}/api/v1/payments/create`, {
        method: "POST",
        headers: { ...keys, "content-type": "application/json", ...headers },
        body: JSON.stringify({
          amount: 2400,
          currency: "usd",
          customerEmail: EMAIL,
          customerName: NAME,
          successUrl: "https://shop.example.com/ok",
          cancelUrl: "https://shop.example.com/no",
          webhookUrl: `${hooks.url}/hook?token=receiver-token-7781`,
        }),
      });
    return { service, url, keys, webhookSecret, sandboxUrl, create };
  }

  const spansOf = (traceId: string) => otlp.spans.filter((span) => span.traceId === traceId);

  /** No attribute of any span, nor the resource, holds one of these, in any case. */
  function assertNothingSecret(spans: readonly ReceivedSpan[], secrets: readonly string[]) {
    for (const span of spans) {
      for (const [key, value] of Object.entries({ ...span.attributes, ...span.resource })) {
        for (const secret of secrets.filter(Boolean)) {
          assert.ok(
            !String(value).toLowerCase().includes(secret.toLowerCase()),
            `${span.name}'s ${key} holds ${secret}: ${value}`,
          );
        }
      }
    }
  }

  it("a create continues the caller's trace: server span, statement spans and the processor's client span (protobuf)", async () => {
    const { service, keys, webhookSecret, sandboxUrl, create } = await tracedService("http/protobuf");
    try {
      const response = await create({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
      assert.equal(response.status, 200);
      const created = ((await response.json()) as { data: { transactionId: string; sessionId: string } })
        .data;
      const server = await waitFor(async () =>
        spansOf(CALLER_TRACE).find(
          (span) => span.kind === SERVER && span.name === "POST /api/v1/payments/create",
        ),
      );
      assert.equal(server.parentSpanId, CALLER_SPAN, "the caller's span is the parent");
      assert.equal(server.encoding, "protobuf");
      assert.equal(server.attributes["http.request.method"], "POST");
      assert.equal(server.attributes["http.route"], "/api/v1/payments/create");
      assert.equal(server.attributes["http.response.status_code"], 200);
      assert.equal(server.resource["service.name"], "checkout-service");
      assert.equal(server.resource["deployment.environment.name"], "test");
      const trace = await waitFor(async () => {
        const spans = spansOf(CALLER_TRACE);
        return spans.some((span) => span.attributes["checkout.processor"]) ? spans : undefined;
      });
      const statements = trace.filter((span) => span.attributes["db.system.name"] === "postgresql");
      assert.ok(statements.length >= 2, `statement spans: ${statements.length}`);
      assert.ok(statements.some((span) => span.attributes["db.operation.name"] === "INSERT"));
      for (const statement of statements) {
        assert.equal(statement.kind, CLIENT);
        assert.doesNotMatch(String(statement.attributes["db.query.text"]), /Ottilie/i);
      }
      const processor = trace.find((span) => span.attributes["checkout.processor"] === "stripe");
      assert.ok(processor, "the processor's call is a client span naming it");
      assert.equal(processor.kind, CLIENT);
      assert.equal(processor.attributes["http.request.method"], "POST");
      assert.equal(processor.attributes["http.response.status_code"], 200);
      assert.equal(typeof processor.attributes["server.address"], "string");

      // Paid: the sandbox's event queues a delivery; its attempt is a trace of its own, linked.
      await fetch(`${sandboxUrl}/sandbox/sessions/${created.sessionId}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ outcome: "succeeded" }),
      });
      const attempt = await waitFor(async () =>
        otlp.spans.find((span) => span.name === "POST" && span.attributes["checkout.delivery_id"]),
      );
      assert.equal(attempt.kind, CLIENT);
      assert.equal(attempt.parentSpanId, "", "a trace of its own");
      assert.equal(attempt.attributes["url.full"], `${hooks.url}/hook`, "without its query");
      assert.equal(attempt.attributes["http.response.status_code"], 200);
      assert.equal(attempt.attributes["checkout.event"], "payment.completed");
      const [link] = attempt.links;
      assert.ok(link, "linked to the request whose change queued it");
      const cause = otlp.spans.find((span) => span.spanId === link.spanId);
      assert.equal(cause?.kind, SERVER);
      assert.equal(cause?.name, "POST /processor/webhooks/:processor");
      assert.ok(
        otlp.spans.every(
          (span) => span.attributes["url.full"] !== `${hooks.url}/hook?token=receiver-token-7781`,
        ),
        "no span of the webhook's own HTTP call",
      );

      assertNothingSecret(otlp.spans, [
        EMAIL,
        NAME,
        encodeURIComponent(EMAIL),
        keys["x-public-key"],
        keys["x-secret-key"],
        webhookSecret,
        "receiver-token-7781",
      ]);
      const traced = logLines(service.output().stdout).filter((line) => line.trace_id === CALLER_TRACE);
      assert.ok(traced.length > 0, "the request's log lines name its trace");
      assert.ok(traced.every((line) => typeof line.span_id === "string"));
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  });

  it("with no OTLP endpoint set, no OpenTelemetry SDK, exporter or instrumentation is loaded", async () => {
    const counter = pathToFileURL(join(process.cwd(), "test/fixtures/count-otel-modules.mjs")).href;
    const loaded = async (env: Record<string, string>) => {
      const service = startProcess({
        DATA_DIR: await mkdtemp(join(dataDir, "modules-")),
        NODE_OPTIONS: `--import=${counter}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: "",
        ...env,
      });
      await service.started;
      service.child.kill("SIGTERM");
      await service.exited;
      const counted = /opentelemetry modules loaded: (\d+)/.exec(service.output().stderr)?.[1];
      assert.ok(counted !== undefined, service.output().stderr);
      return Number(counted);
    };
    assert.equal(await loaded({}), 0);
    assert.ok(
      (await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl })) > 10,
      "the count sees them when they are",
    );
  });

  it("exports OTLP/JSON when OTEL_EXPORTER_OTLP_PROTOCOL says so", async () => {
    const { service, create } = await tracedService("http/json");
    try {
      const response = await create();
      assert.equal(response.status, 200);
      const server = await waitFor(async () =>
        otlp.spans.find(
          (span) =>
            span.encoding === "json" && span.kind === SERVER && span.name === "POST /api/v1/payments/create",
        ),
      );
      assert.equal(server.parentSpanId, "", "no traceparent: a trace of its own");
      assert.ok(otlp.contentTypes.has("application/json"));
      assert.ok(spansOf(server.traceId).length > 1);
    } finally {
      service.child.kill("SIGTERM");
      await service.exited;
    }
  });
});
