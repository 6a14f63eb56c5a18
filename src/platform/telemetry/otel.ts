// OpenTelemetry, loaded by main.ts only when the OTEL_* settings ask for traces. The SDK reads the
// standard settings itself (endpoint, protocol, service name, resource attributes, sampler); the
// maintained instrumentations make the server spans (@fastify/otel), the statement spans of `pg`
// and the client spans of undici and fetch; this file adds only what no library sees.
import { FastifyOtelInstrumentation } from "@fastify/otel";
import {
  type Context,
  context,
  createContextKey,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";
import pg from "pg";
import { operationOf, type SpanOptions, type Tracing } from "./tracing.ts";

const PROCESSOR = createContextKey("checkout.processor");
const WITHOUT_HTTP_SPANS = createContextKey("checkout.without-http-spans");
const TRACER = "checkout-service";

/** The path of a request line, without its query (a dashboard search carries a customer's address). */
const pathOnly = (url: string) => url.split("?", 1)[0] ?? url;

/** A span that only has the context the traceparent names, for a link or a parent. */
function contextOf(traceparent: string | null | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

export interface StartedTracing {
  tracing: Tracing;
  /** Flushes the spans not yet exported, then stops. */
  stop(): Promise<void>;
}

export function startTracing(): StartedTracing {
  // Traces only: metrics are Prometheus's (/metrics), logs are the JSON lines on stdout.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  process.env.OTEL_SERVICE_NAME ??= "checkout-service";
  const pgInstrumentation = new PgInstrumentation({
    // A worker's polling outside any request or attempt would be a trace of its own each time.
    requireParentSpan: true,
    ignoreConnectSpans: true,
    // Values never: statements are parameterised, and the parameters are the customer's data.
    enhancedDatabaseReporting: false,
    requestHook: (span, { query }) => span.setAttribute("db.operation.name", operationOf(query.text)),
  });
  const sdk = new NodeSDK({
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // One server span a request; its hooks and handler are not spans of their own.
        instrumentHooks: false,
        instrumentHandler: false,
        requestHook: (span, request) => {
          const route = request.routeOptions.url;
          span.updateName(route ? `${request.method} ${route}` : request.method);
          span.setAttribute("url.path", pathOnly(request.url));
        },
      }),
      pgInstrumentation,
      new UndiciInstrumentation({
        ignoreRequestHook: () => context.active().getValue(WITHOUT_HTTP_SPANS) === true,
        startSpanHook: () => {
          const processor = context.active().getValue(PROCESSOR);
          return typeof processor === "string" ? { "checkout.processor": processor } : {};
        },
      }),
    ],
  });
  sdk.start();
  // `pg` was imported before the SDK started (ES modules load first): patched where it stands.
  for (const definition of pgInstrumentation.getModuleDefinitions()) {
    if (definition.name === "pg") definition.patch?.(pg);
  }

  const tracer = trace.getTracer(TRACER);
  const tracing: Tracing = {
    on: true,
    span(name, options: SpanOptions, work) {
      const links: Link[] = [];
      const linked = trace.getSpanContext(contextOf(options.linkedTo));
      if (linked) links.push({ context: linked });
      const parent = options.linkedTo === undefined ? context.active() : ROOT_CONTEXT;
      return tracer.startActiveSpan(
        name,
        {
          kind: options.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
          attributes: options.attributes,
          links,
          root: options.linkedTo !== undefined,
        },
        parent,
        async (span) => {
          try {
            return await work({
              setAttribute: (key, value) => span.setAttribute(key, value),
              fail: (reason) => span.setStatus({ code: SpanStatusCode.ERROR, message: reason }),
            });
          } catch (error) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).name });
            throw error;
          } finally {
            span.end();
          }
        },
      );
    },
    statement(sql, work) {
      if (!trace.getSpan(context.active())) return work();
      const operation = operationOf(sql);
      return tracing.span(
        operation || "statement",
        {
          kind: "client",
          attributes: {
            "db.system.name": "postgresql",
            "db.operation.name": operation,
            "db.query.text": sql,
          },
        },
        work,
      );
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      if (!trace.getSpan(context.active())) return null;
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    asProcessor: (processor, work) => context.with(context.active().setValue(PROCESSOR, processor), work),
    withoutHttpSpans: (work) => context.with(context.active().setValue(WITHOUT_HTTP_SPANS, true), work),
    logFields() {
      const active = trace.getSpan(context.active())?.spanContext();
      return active ? { trace_id: active.traceId, span_id: active.spanId } : {};
    },
  };
  return { tracing, stop: () => sdk.shutdown() };
}
