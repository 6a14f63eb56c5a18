// docs/architecture.md's "Where each rule lives" sends a reader to a file and a name in it: both
// must be there, after every move.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, it } from "node:test";

// The tests run compiled from a cache directory, always from the repository root.
const ROOT = process.cwd();

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`],
  );
const SOURCES = sourceFiles("src");

/** The index's rows: the rule, and the backticked names of its home. */
function indexRows(): { rule: string; names: string[] }[] {
  const text = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
  const section = text.slice(text.indexOf("## Where each rule lives"));
  const table = section.slice(0, section.indexOf("\n## "));
  return table
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Rule") && !line.startsWith("|---"))
    .map((line) => {
      const cells = line.split(" | ");
      const home = cells[cells.length - 1] as string;
      return {
        rule: cells[0]?.slice(2) ?? "",
        names: [...home.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string),
      };
    });
}

const isPath = (name: string): boolean => /\.(ts|sql)$|\/$/.test(name);

/**
 * A path as the index writes it: from the repository (`src/…`), from `src/`, beside the row's
 * previous file, or a file's unique tail.
 */
function resolvePath(name: string, previous: string | undefined): string | undefined {
  const beside = previous?.endsWith("/") ? previous : previous && posix.dirname(previous);
  const candidates = [
    name,
    `src/${name}`,
    ...(beside ? [posix.join(beside, name), posix.join(beside, "..", name)] : []),
  ];
  const found = candidates.find((candidate) => existsSync(join(ROOT, candidate)));
  if (found) return found;
  const tails = SOURCES.filter((file) => file.endsWith(`/${name}`));
  return tails.length === 1 ? tails[0] : undefined;
}

describe("the architecture's index of rules", () => {
  const rows = indexRows();

  it("has its rows", () => assert.ok(rows.length > 40, `${rows.length} rows`));

  it("names files and folders that exist, and names that are in them", () => {
    const missing: string[] = [];
    for (const { rule, names } of rows) {
      const files: string[] = [];
      let previous: string | undefined;
      for (const name of names.filter(isPath)) {
        const path = resolvePath(name, previous);
        if (!path) {
          missing.push(`${rule}: ${name}`);
          continue;
        }
        previous = path;
        if (statSync(join(ROOT, path)).isDirectory()) {
          files.push(...sourceFiles(path.replace(/\/$/, "")));
        } else files.push(path);
      }
      const texts = (files.length > 0 ? files : SOURCES).map((file) =>
        readFileSync(join(ROOT, file), "utf8"),
      );
      for (const name of names.filter((n) => !isPath(n) && /^[A-Za-z_][\w.]*$/.test(n))) {
        const word = name.slice(name.lastIndexOf(".") + 1);
        if (!texts.some((text) => text.includes(word))) missing.push(`${rule}: ${name}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
