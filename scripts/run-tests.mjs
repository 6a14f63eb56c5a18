// Runs every test/**/*.test.ts with node's own test runner (Node 20 has no glob for --test), on
// plain JavaScript compiled from the sources first.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { replaceDir } from "./replace-dir.mjs";

function findFiles(dir, wanted) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findFiles(path, wanted);
    return wanted(entry.name) ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = findFiles("test", (name) => name.endsWith(".test.ts"))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// The CLI tests run bin/checkout.js, which runs the compiled service, as production does.
const distBuild = spawnSync(process.execPath, ["scripts/build.mjs", "--if-changed"], {
  stdio: "inherit",
});
if (distBuild.status !== 0) process.exit(distBuild.status ?? 1);

/** The TypeScript the tests load, and the files beside it that it reads (migrations, package.json). */
const SOURCE_DIRS = ["src", "test", "examples"];
const COMPILED = join("node_modules", ".cache", "checkout-tests", "js");

/**
 * Compiles the tests and what they import to JavaScript (esbuild, about half a second), so that
 * each test file loads its modules without a loader. Under tsx, every import of a test process
 * crossed to the loader's own thread and back (Node 20 runs module hooks off-thread): that cost
 * each test file about 1.9 s of CPU. Types are checked by `npm run typecheck`, as before.
 */
async function compileTests() {
  const next = `${COMPILED}.next-${process.pid}`;
  const sources = SOURCE_DIRS.flatMap((dir) => findFiles(dir, (name) => name.endsWith(".ts")));
  const result = await build({
    entryPoints: sources,
    outdir: next,
    outbase: ".",
    format: "esm",
    platform: "node",
    target: "node20.18",
    sourcemap: "inline",
    write: false,
    logLevel: "error",
  });
  for (const output of result.outputFiles) {
    mkdirSync(dirname(output.path), { recursive: true });
    // The sources import each other as ./x.ts (allowImportingTsExtensions); the output is x.js.
    writeFileSync(output.path, output.text.replace(RELATIVE_TS_IMPORT, "$1$2$3.js$2"));
  }
  for (const dir of SOURCE_DIRS) {
    for (const file of findFiles(dir, (name) => !name.endsWith(".ts"))) cpSync(file, join(next, file));
  }
  // Scopes the output as ES modules and answers src/config.ts's import of ../package.json.
  cpSync("package.json", join(next, "package.json"));
  replaceDir(next, COMPILED);
}

/** `from "./a.ts"`, `import "../b.ts"`, `import("./c.ts")`: relative module specifiers only. */
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

await compileTests();
// --liftoff-only: each test file is a short-lived process, and most of them compile PGlite's
// WebAssembly. Its baseline compile is all they need; optimising it again in the background cost
// the suite about a fifth of its CPU (3 min 33 s -> 2 min 54 s on this 2-core VM). The services
// the process tests start get it too (test/helpers/process.ts).
const compiledTests = files.map((file) => join(COMPILED, file.replace(/\.ts$/, ".js")));
const run = spawnSync(
  process.execPath,
  [
    "--liftoff-only",
    "--enable-source-maps",
    "--test",
    "--test-concurrency=2",
    "--test-timeout=300000",
    ...compiledTests,
  ],
  { stdio: "inherit" },
);
process.exit(run.status ?? 1);
