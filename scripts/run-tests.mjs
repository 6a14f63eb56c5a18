// Runs every test/**/*.test.ts with node's own test runner, on plain JavaScript compiled from the
// sources first (Node 22 and 24).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
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
/**
 * Outside node_modules: from Node 22 on, `node --test` takes its arguments as patterns, and its
 * patterns never match a file under node_modules.
 */
const COMPILED = join(".cache", "checkout-tests", "js");

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
    target: "node22",
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
  // Scopes the output as ES modules and answers src/config/config.ts's import of ../../package.json.
  cpSync("package.json", join(next, "package.json"));
  replaceDir(next, COMPILED);
}

/** `from "./a.ts"`, `import "../b.ts"`, `import("./c.ts")`: relative module specifiers only. */
const RELATIVE_TS_IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/**
 * Test files that start the service as a process, run the CLI or drive Chromium spend their time
 * in those children, often waiting: each keeps a process of its own. Only the balance of the run
 * depends on this guess, never a result.
 */
const STARTS_CHILDREN = /\b(?:startProcess|checkoutCli|launchChromium|spawn|execFile)\(/;
/** About how many test files share one process: enough to pay the imports once, few enough to balance. */
const FILES_PER_SHARD = 7;
/** How long each test file took last time (scripts/test-durations.mjs), by source path, to balance this run. */
const DURATIONS = join(".cache", "checkout-tests", "durations.json");

const compiled = (file) => join(COMPILED, file.replace(/\.ts$/, ".js"));

function readDurations() {
  try {
    return JSON.parse(readFileSync(DURATIONS, "utf8"));
  } catch {
    return {};
  }
}

/**
 * Each file's expected duration: last run's, or, for a file not run before (every file in a fresh
 * clone), its source size at the rate of the files that were.
 */
function expectedDurations(testFiles, sources) {
  const last = readDurations();
  let knownTime = 0;
  let knownSize = 0;
  for (const file of testFiles) {
    const time = last[file];
    if (time === undefined) continue;
    knownTime += time;
    knownSize += sources.get(file).length;
  }
  const perByte = knownSize > 0 ? knownTime / knownSize : 1;
  return new Map(testFiles.map((file) => [file, last[file] ?? sources.get(file).length * perByte]));
}

/**
 * The processes of this run, longest first. The in-process test files are grouped into shards,
 * each one process that imports its files in turn: a test process spent about a second loading
 * the service's modules and another warming up the code that builds it before its first test
 * ran, and in a shard its files after the first pay neither. Files go to the shard with the least
 * expected time so far, longest first.
 */
function planProcesses(testFiles) {
  const sources = new Map(testFiles.map((file) => [file, readFileSync(file, "utf8")]));
  const expected = expectedDurations(testFiles, sources);
  const own = testFiles.filter((file) => STARTS_CHILDREN.test(sources.get(file)));
  const shared = testFiles.filter((file) => !own.includes(file));
  const byExpected = (a, b) => b.time - a.time;
  const shards = Array.from({ length: Math.ceil(shared.length / FILES_PER_SHARD) }, () => ({
    files: [],
    time: 0,
  }));
  for (const file of shared.sort((a, b) => expected.get(b) - expected.get(a))) {
    const lightest = shards.reduce((least, shard) => (shard.time < least.time ? shard : least));
    lightest.files.push(file);
    lightest.time += expected.get(file);
  }
  const ownProcesses = own.map((file) => ({ path: compiled(file), time: expected.get(file) }));
  const shardProcesses = shards.map((shard, index) => ({
    path: writeShard(shard.files, index),
    time: shard.time,
  }));
  return [...ownProcesses, ...shardProcesses].sort(byExpected).map((entry) => entry.path);
}

/** One module that imports the shard's test files; node:test runs their suites in that order. */
function writeShard(files, index) {
  if (files.length === 1) return compiled(files[0]);
  const dir = join(COMPILED, "shards");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `shard-${index + 1}.test.js`);
  const imports = files.map(
    (file) => `import ${JSON.stringify(pathToFileURL(resolve(compiled(file))).href)};`,
  );
  writeFileSync(path, `${imports.join("\n")}\n`);
  return path;
}

/**
 * Saves last run's durations with this run's over them (a run of a few files keeps the others'),
 * and answers what this run skipped.
 */
function readReport(reported) {
  try {
    const { durations, skipped } = JSON.parse(readFileSync(reported, "utf8"));
    writeFileSync(DURATIONS, JSON.stringify({ ...readDurations(), ...durations }, null, 1));
    return skipped;
  } catch {
    // A run stopped before its reporter finished measures nothing; the last plan stands.
    return [];
  } finally {
    rmSync(reported, { force: true });
  }
}

/** Every skipped suite and test, counted by what would run them: node's summary misses suites. */
function tellSkips(skipped) {
  if (skipped.length === 0) return;
  const byReason = new Map();
  for (const { reason } of skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  const lines = [...byReason].map(([reason, count]) => `#   ${count} × ${reason}`);
  process.stdout.write(
    `# skipped suites and tests: ${skipped.length}, each for a reason:\n${lines.join("\n")}\n`,
  );
}

await compileTests();
const processes = planProcesses(files);
const reported = `${DURATIONS}.${process.pid}`;
// --liftoff-only: each test file is a short-lived process, and most of them compile PGlite's
// WebAssembly. Its baseline compile is all they need; optimising it again in the background cost
// the suite about a fifth of its CPU (3 min 33 s -> 2 min 54 s on this 2-core VM). The services
// the process tests start get it too (test/helpers/process.ts).
// Three processes at a time on two cores: the process and browser tests, and some suites, spend
// much of their time waiting on children or timers, and a third process uses what they leave.
// The reporter on the terminal is node's own choice (spec on a terminal, TAP elsewhere); the
// second one writes each file's duration for the next run's plan.
const run = spawnSync(
  process.execPath,
  [
    "--liftoff-only",
    "--enable-source-maps",
    "--test",
    "--test-concurrency=3",
    "--test-timeout=300000",
    `--test-reporter=${process.stdout.isTTY ? "spec" : "tap"}`,
    "--test-reporter-destination=stdout",
    "--test-reporter=./scripts/test-durations.mjs",
    `--test-reporter-destination=${reported}`,
    ...processes,
  ],
  { stdio: "inherit" },
);
tellSkips(readReport(reported));
process.exit(run.status ?? 1);
