// `npm test` tells every skip with what would run it: node's summary counts skipped tests but
// not skipped suites, so the run's own reporter collects both.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NEEDS_POSTGRES } from "../helpers/database.ts";

type Reporter = (source: AsyncIterable<unknown>) => AsyncGenerator<string>;

async function report(events: unknown[]): Promise<{ skipped: { name: string; reason: string }[] }> {
  // The reporter is plain JavaScript that node loads by path; the tests run from the repository root.
  const { pathToFileURL } = await import("node:url");
  const module = (await import(pathToFileURL(`${process.cwd()}/scripts/test-durations.mjs`).href)) as {
    default: Reporter;
  };
  async function* source() {
    yield* events;
  }
  let out = "";
  for await (const chunk of module.default(source())) out += chunk;
  return JSON.parse(out);
}

const passed = (name: string, nesting: number, skip?: string, type = "test") => ({
  type: "test:pass",
  data: { name, nesting, file: `${process.cwd()}/test/x.test.ts`, skip, details: { duration_ms: 1, type } },
});

describe("the test run's skip report", () => {
  it("counts skipped suites as well as skipped tests, each with its reason", async () => {
    const { skipped } = await report([
      passed("a suite on PostgreSQL", 0, NEEDS_POSTGRES, "suite"),
      passed("a test on Redis", 1, "no Redis at redis://127.0.0.1:6379/0: install it"),
      passed("a test that ran", 1),
    ]);
    assert.deepEqual(
      skipped.map((entry) => entry.name),
      ["a suite on PostgreSQL", "a test on Redis"],
    );
    assert.match(skipped[0]?.reason ?? "", /install it \(Debian: apt-get install postgresql\)/);
  });
});
