// Compiles src/ to dist/ (plain JavaScript: no loader, no on-the-fly transforms at run time) and
// copies the SQL migrations beside the compiled migration runner. Runs at install (`prepare`), so
// `npm start` only starts. A production install (`npm ci --omit=dev`) has no TypeScript: there it
// keeps the dist/ it was given, and says so when there is none.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { replaceDir } from "./replace-dir.mjs";

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve("typescript/bin/tsc");
} catch {
  if (existsSync("dist/src/main.js")) {
    console.log("build: TypeScript is not installed (production install); using the existing dist/");
    process.exit(0);
  }
  console.error(
    "build: dist/ is missing and TypeScript is not installed. Build first with `npm ci && npm run build`\n" +
      "(the Dockerfile's build stage does this), then install for production with `npm ci --omit=dev`.",
  );
  process.exit(1);
}
/**
 * Compiles `project` beside `dist` and swaps it in whole: a service or test run using dist/ never
 * sees it half-deleted. `extra` adds files to the new tree before the swap.
 */
function build(project, dist, extra = () => {}) {
  const next = `${dist}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [tsc, "-p", project, "--outDir", next], { stdio: "inherit" });
  if (result.status !== 0) {
    rmSync(next, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
  extra(next);
  replaceDir(next, dist);
}

/** Every input of the build, by path and content: the same hash means the same dist/. */
function sourceHash() {
  const hash = createHash("sha256");
  const add = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) add(child);
      else hash.update(child).update(readFileSync(child));
    }
  };
  add("src");
  add("packages/client/src");
  for (const file of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "packages/client/package.json",
    "packages/client/tsconfig.json",
    "scripts/build.mjs",
    "scripts/replace-dir.mjs",
  ]) {
    hash.update(file).update(readFileSync(file));
  }
  return hash.digest("hex");
}

// `--if-changed` (npm test): nothing to do when dist/ was built from these very sources.
const STAMP = "dist/.source-hash";
const hash = sourceHash();
const built = existsSync(STAMP) && existsSync("packages/client/dist") ? readFileSync(STAMP, "utf8") : "";
if (process.argv.includes("--if-changed") && built === hash) {
  console.log("build: dist/ is up to date with the sources");
  process.exit(0);
}
// The client package (packages/client) first: the CLI under src/ imports it, as users do.
build("packages/client/tsconfig.json", "packages/client/dist");
build("tsconfig.build.json", "dist", (next) =>
  cpSync("src/platform/db/migrations", `${next}/src/platform/db/migrations`, { recursive: true }),
);
// Written last: only a build that finished whole is ever taken as up to date.
writeFileSync(STAMP, hash);
