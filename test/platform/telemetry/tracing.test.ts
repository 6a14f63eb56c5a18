// Which settings turn traces on, and the operation a statement span is named by.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { operationOf, tracesRequested } from "../../../src/platform/telemetry/tracing.ts";

describe("tracing settings", () => {
  it("are on with an OTLP endpoint, for traces or for all signals, unless the SDK or its trace exporter is off", () => {
    assert.equal(tracesRequested({}), false);
    assert.equal(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: " " }), false);
    assert.equal(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), true);
    assert.equal(
      tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }),
      true,
    );
    assert.equal(
      tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "TRUE" }),
      false,
    );
    assert.equal(
      tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }),
      false,
    );
  });
});

describe("a statement's operation", () => {
  it("is its first keyword, or what follows its common table expressions", () => {
    assert.equal(operationOf("SELECT 1"), "SELECT");
    assert.equal(operationOf("  insert into t values ($1)"), "INSERT");
    assert.equal(
      operationOf("WITH a AS (SELECT ')' FROM t), b(x, y) AS (SELECT 1, 2) UPDATE t SET x = 1"),
      "UPDATE",
    );
    assert.equal(
      operationOf("WITH event AS (INSERT INTO e VALUES (1) RETURNING id) SELECT pg_notify('c', '')"),
      "SELECT",
    );
  });
});
