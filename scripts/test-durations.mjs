// A node:test reporter: how long each test file's suites and top-level tests ran, in milliseconds,
// as one JSON object keyed by the file's path. scripts/run-tests.mjs balances the next run with it.
import { relative } from "node:path";

export default async function* testDurations(source) {
  const durations = {};
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    const key = relative(process.cwd(), file);
    durations[key] = (durations[key] ?? 0) + details.duration_ms;
  }
  yield JSON.stringify(durations);
}
