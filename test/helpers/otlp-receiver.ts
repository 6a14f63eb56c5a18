// An OTLP/HTTP trace receiver, as a collector is one: POST /v1/traces in protobuf or JSON, each
// decoded into the same plain spans. The protobuf side reads the wire format itself (the fields of
// opentelemetry-proto's trace.proto a test looks at), so it checks the bytes, not our exporter's
// own serializer.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (SpanKind of trace.proto). */
  kind: number;
  attributes: Record<string, AttributeValue>;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, AttributeValue>;
  /** How the batch it came in was encoded. */
  encoding: "protobuf" | "json";
}

interface Field {
  number: number;
  wire: number;
  value: bigint | Buffer;
}

/** The fields of one protobuf message, in order; nested messages stay bytes until read. */
function fields(message: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = message[at++];
      if (byte === undefined) throw new Error("truncated varint");
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (at < message.length) {
    const key = Number(varint());
    const wire = key & 7;
    const number = key >>> 3;
    if (wire === 0) out.push({ number, wire, value: varint() });
    else if (wire === 1) {
      out.push({ number, wire, value: message.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, wire, value: message.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ number, wire, value: message.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const bytesOf = (list: Field[], number: number) =>
  list.filter((field) => field.number === number).map((field) => field.value as Buffer);
const first = (list: Field[], number: number) => bytesOf(list, number)[0];

/** AnyValue: string 1, bool 2, int 3, double 4. */
function anyValue(message: Buffer): AttributeValue {
  const [field] = fields(message);
  if (!field) return "";
  if (field.number === 1) return (field.value as Buffer).toString("utf8");
  if (field.number === 2) return field.value === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
  if (field.number === 4) return (field.value as Buffer).readDoubleLE(0);
  return `(${field.number})`;
}

/** KeyValue list: key 1, value 2. */
function protobufAttributes(list: Buffer[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const pair of list) {
    const parts = fields(pair);
    const key = first(parts, 1)?.toString("utf8") ?? "";
    const value = first(parts, 2);
    attributes[key] = value ? anyValue(value) : "";
  }
  return attributes;
}

/** ExportTraceServiceRequest: resource_spans 1 → resource 1 (attributes 1), scope_spans 2 → spans 2. */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1)) {
    const parts = fields(resourceSpans);
    const resourceMessage = first(parts, 1);
    const resource = resourceMessage ? protobufAttributes(bytesOf(fields(resourceMessage), 1)) : {};
    for (const scopeSpans of bytesOf(parts, 2)) {
      for (const span of bytesOf(fields(scopeSpans), 2)) {
        const f = fields(span);
        const hex = (number: number) => first(f, number)?.toString("hex") ?? "";
        spans.push({
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: first(f, 5)?.toString("utf8") ?? "",
          kind: Number(f.find((field) => field.number === 6)?.value ?? 0n),
          attributes: protobufAttributes(bytesOf(f, 9)),
          links: bytesOf(f, 13).map((link) => {
            const l = fields(link);
            return {
              traceId: first(l, 1)?.toString("hex") ?? "",
              spanId: first(l, 2)?.toString("hex") ?? "",
            };
          }),
          resource,
          encoding: "protobuf",
        });
      }
    }
  }
  return spans;
}

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
}

const jsonAttributes = (list: JsonKeyValue[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ??
        value.boolValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? "")),
    ]),
  ) as Record<string, AttributeValue>;

/** OTLP/JSON: ids are hex strings, int values strings, enums numbers. */
function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString("utf8")) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonKeyValue[];
          links?: { traceId: string; spanId: string }[];
        }[];
      }[];
    }[];
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        resource: jsonAttributes(resourceSpans.resource?.attributes),
        encoding: "json" as const,
      })),
    ),
  );
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Content types of the batches received. */
  readonly contentTypes = new Set<string>();
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const type = request.headers["content-type"] ?? "";
        this.contentTypes.add(type);
        try {
          if (request.url !== "/v1/traces") throw new Error(`unexpected path ${request.url}`);
          const body = Buffer.concat(chunks);
          this.spans.push(...(type.includes("json") ? decodeJson(body) : decodeProtobuf(body)));
          response.writeHead(200, { "content-type": type.includes("json") ? "application/json" : type });
          response.end(type.includes("json") ? "{}" : "");
        } catch (error) {
          response.writeHead(400).end((error as Error).message);
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
