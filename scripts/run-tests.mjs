// Runs every test/**/*.test.ts with node's own test runner (Node 20 has no glob for --test).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests("test")
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// The CLI tests run bin/checkout.js, which runs the compiled service, as production does.
const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-changed"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
// --liftoff-only: each test file is a short-lived process, and most of them compile PGlite's
// WebAssembly. Its baseline compile is all they need; optimising it again in the background cost
// the suite about a fifth of its CPU (3 min 33 s -> 2 min 54 s on this 2-core VM). The services
// the process tests start get it too (test/helpers/process.ts).
const result = spawnSync(
  process.execPath,
  ["--liftoff-only", "--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=300000", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
