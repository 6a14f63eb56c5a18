// A node:test reporter: how long each test file's suites and top-level tests ran, in milliseconds,
// keyed by the file's path (scripts/run-tests.mjs balances the next run with it), and every suite
// or test that was skipped with its reason. Node's own summary counts skipped tests but not
// skipped suites, so scripts/run-tests.mjs tells the skips from this.
import { relative } from "node:path";

export default async function* testDurations(source) {
  const durations = {};
  const skipped = [];
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details, skip, name } = event.data;
    if (skip !== undefined) skipped.push({ name, reason: typeof skip === "string" ? skip : "skipped" });
    if (nesting !== 0 || !file) continue;
    const key = relative(process.cwd(), file);
    durations[key] = (durations[key] ?? 0) + details.duration_ms;
  }
  yield JSON.stringify({ durations, skipped });
}
