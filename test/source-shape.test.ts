// The shape the code keeps, so a reader can hold a file in mind: no file under src/ past 350 lines,
// and tests that mirror src/, each findable by its name.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const MOST_LINES = 350;
const MOST_TOP_LEVEL_ENTRIES = 16;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );

describe("the source tree's shape", () => {
  it(`keeps every file under src/ at ${MOST_LINES} lines or fewer`, () => {
    // The tests run compiled from a cache directory, always from the repository root.
    const long = sources(join(process.cwd(), "src"))
      .map((file) => ({ file, lines: readFileSync(file, "utf8").split("\n").length }))
      .filter(({ lines }) => lines > MOST_LINES)
      .map(({ file, lines }) => `${file.slice(process.cwd().length + 1)}: ${lines} lines`);
    assert.deepEqual(long, []);
  });

  it(`shows the layers at the top of src/ in ${MOST_TOP_LEVEL_ENTRIES} entries or fewer`, () => {
    const entries = readdirSync(join(process.cwd(), "src"));
    assert.ok(entries.length <= MOST_TOP_LEVEL_ENTRIES, entries.join(", "));
    assert.ok(
      entries.includes("platform") && entries.includes("pages"),
      "the plumbing and the pages each in one folder",
    );
  });

  it("names a processor only in its own folders: the catalog says the rest", () => {
    const named = sources(join(process.cwd(), "src"))
      .map((file) => file.slice(process.cwd().length + 1))
      .filter((file) => !/^src\/(processor|sandbox)\/|^src\/openapi\/examples\.ts$/.test(file))
      .filter((file) => /\b(stripe|square)/i.test(readFileSync(file, "utf8")));
    assert.deepEqual(named, []);
  });

  it("keeps tests where their sources are, no two of one name", () => {
    const tests = sources(join(process.cwd(), "test"))
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => file.slice(process.cwd().length + 1));
    assert.ok(tests.length > 100, "the tests were found");
    assert.deepEqual(
      tests.filter((file) => file.startsWith("test/unit/")),
      [],
      "a test goes beside the others of its module, not in a folder of its kind",
    );
    const byName = new Map<string, string[]>();
    for (const file of tests) {
      const name = file.slice(file.lastIndexOf("/") + 1);
      byName.set(name, [...(byName.get(name) ?? []), file]);
    }
    assert.deepEqual(
      [...byName.values()].filter((files) => files.length > 1),
      [],
    );
  });
});
