// The service's own spans go through this one seam (docs/operations.md, "Traces"). With an OTLP
// endpoint configured, main.ts loads OpenTelemetry (src/platform/telemetry/otel.ts) and puts it here before
// anything else starts; without one, no OpenTelemetry module is loaded and every call below is a
// pass-through.

export type SpanAttributes = Record<string, string | number | boolean>;

export interface SpanOptions {
  kind: "client" | "internal";
  attributes: SpanAttributes;
  /** Starts a trace of its own, linked to the span this W3C traceparent names (when there is one). */
  linkedTo?: string | null;
}

export interface ActiveSpan {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span failed; `reason` says why in words that carry no customer data. */
  fail(reason: string): void;
}

export interface Tracing {
  readonly on: boolean;
  span<T>(name: string, options: SpanOptions, work: (span: ActiveSpan) => Promise<T>): Promise<T>;
  /** A database statement run where no driver instrumentation sees it (the embedded database). */
  statement<T>(sql: string, work: () => Promise<T>): Promise<T>;
  /** The active span as a W3C traceparent, to link later work to it; null when there is none. */
  traceparent(): string | null;
  /** `work`'s outgoing HTTP calls are this processor's: their client spans say which. */
  asProcessor<T>(processor: string, work: () => Promise<T>): Promise<T>;
  /** `work`'s outgoing HTTP calls are told by a span of ours: no client span of their own. */
  withoutHttpSpans<T>(work: () => Promise<T>): Promise<T>;
  /** The active span's ids for a log line: `trace_id` and `span_id`, or nothing. */
  logFields(): Record<string, string>;
}

const NO_SPAN: ActiveSpan = { setAttribute() {}, fail() {} };

const noTracing: Tracing = {
  on: false,
  span: (_name, _options, work) => work(NO_SPAN),
  statement: (_sql, work) => work(),
  traceparent: () => null,
  asProcessor: (_processor, work) => work(),
  withoutHttpSpans: (work) => work(),
  logFields: () => ({}),
};

let current: Tracing = noTracing;

/** What the process traces with: OpenTelemetry once main.ts has started it, else nothing. */
export const tracing = (): Tracing => current;

export function useTracing(chosen: Tracing): void {
  current = chosen;
}

/** Whether the OTEL_* settings ask for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracesRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

// A statement span is named by its operation on every run of it: read once a text. The texts are
// the service's own constants, a few hundred; the bound holds for any built at run time.
const operations = new Map<string, string>();
const OPERATIONS_KEPT = 2000;

/**
 * The operation a statement performs: its first keyword, or for a statement that starts with
 * common table expressions, the keyword after them (`WITH … INSERT` inserts).
 */
export function operationOf(sql: string): string {
  let operation = operations.get(sql);
  if (operation === undefined) {
    operation = readOperation(sql);
    if (operations.size >= OPERATIONS_KEPT) operations.clear();
    operations.set(sql, operation);
  }
  return operation;
}

function readOperation(sql: string): string {
  const text = sql.trimStart();
  const first = /^[A-Za-z]+/.exec(text)?.[0]?.toUpperCase() ?? "";
  if (first !== "WITH") return first;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "'") quoted = !quoted;
    if (quoted) continue;
    if (char === "(") depth++;
    else if (char === ")" && --depth === 0) {
      const after = /^\s*(,|[A-Za-z]+)/.exec(text.slice(i + 1))?.[1];
      // A CTE's column list, `name(a, b) AS (…)`, closes before its AS.
      if (after && after !== "," && after.toUpperCase() !== "AS") return after.toUpperCase();
    }
  }
  return first;
}
