// The README and docs/ link to each other by file and heading, and the README says what a newcomer must know first.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { CURRENCIES } from "../../src/platform/format/money.ts";

// The tests run compiled from a cache directory, always from the repository root.
const ROOT = process.cwd();
const DOCUMENTS = [
  join(ROOT, "README.md"),
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(ROOT, "docs", name)),
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

const anchorsOf = (file: string): Set<string> =>
  new Set(
    [...readFileSync(file, "utf8").matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] as string)),
  );

/** Links and images outside code blocks: `[text](target)`. */
function linksOf(file: string): string[] {
  const prose = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

describe("documentation links", () => {
  it("the anchors are made as GitHub makes them", () => {
    assert.equal(anchorOf("Dashboard and console (pages)"), "dashboard-and-console-pages");
    assert.equal(anchorOf("`GET /api/v1/auth/test`"), "get-apiv1authtest");
    assert.equal(
      anchorOf("Under a process manager: run `node dist/src/main.js`"),
      "under-a-process-manager-run-node-distsrcmainjs",
    );
  });

  it("every link to a file of the repository finds it, and its heading", () => {
    const broken: string[] = [];
    for (const file of DOCUMENTS) {
      for (const link of linksOf(file)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [path, anchor] = link.split("#") as [string, string | undefined];
        const target = path === "" ? file : resolve(dirname(file), path);
        const where = `${relative(ROOT, file)}: ${link}`;
        if (!existsSync(target)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && target.endsWith(".md") && !anchorsOf(target).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it("no comment or doc sends a reader to a document outside the repository", () => {
    const outside = /\bDESIGN\b|\b[Ss]pec §|§\s?\d|checkout-api\.md|shared\/(spec|DESIGN)/;
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : /\.(ts|md|sql|sh|cjs|mjs)$/.test(entry.name)
            ? [join(dir, entry.name)]
            : [],
      );
    const pointing = ["src", "test", "docs", "bench", "chaos", "scripts", "packages/client/src"]
      .flatMap(files)
      .concat("README.md")
      .filter((file) => !file.endsWith("links.test.ts"))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), "utf8")
          .split("\n")
          .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(pointing, []);
  });

  it("the README names every currency the API takes, before its first command", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const intro = readme.slice(0, readme.indexOf("```"));
    for (const code of CURRENCIES) assert.match(intro, new RegExp(`\\(\`${code}\`\\)`), code);
  });

  it("the README stays a first read, and the performance reference a reference", () => {
    for (const [file, most] of [
      ["README.md", 200],
      ["docs/performance.md", 300],
    ] as const) {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n").length;
      assert.ok(lines <= most, `${file} has ${lines} lines, more than ${most}`);
    }
  });
});
