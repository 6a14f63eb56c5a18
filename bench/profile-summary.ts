// Summarises a .cpuprofile (`npm run bench -- --profile`, `npm run bench:ab -- --profile`): where
// the busy time goes (idle left out, so a profile taken over a mostly idle process still reads in
// shares of the work), by package and function on their own, and by the project's functions with
// everything they call: which of the service's steps a request pays for.
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, top = "25"] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary FILE.cpuprofile [TOP]");
const profile = JSON.parse(await readFile(file, "utf8")) as { nodes: ProfileNode[] };
const projectRoot = new URL("..", import.meta.url).href;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const isIdle = (node: ProfileNode) => node.callFrame.functionName === "(idle)";
const busy = profile.nodes.reduce((sum, node) => sum + (isIdle(node) ? 0 : (node.hitCount ?? 0)), 0);

const keyOf = ({ callFrame: { functionName, url, lineNumber } }: ProfileNode) =>
  `${functionName || "(anonymous)"} ${url.replace(/^file:\/\/.*?node_modules\//, "").replace(projectRoot, "")}:${lineNumber + 1}`;
const packageOf = ({ callFrame: { functionName, url } }: ProfileNode) =>
  url.includes("node_modules/")
    ? (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? "?")
    : url.startsWith("node:") || url === ""
      ? functionName.startsWith("(")
        ? functionName
        : "node internals"
      : "project";

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const add = (map: Map<string, number>, key: string, hits: number) => map.set(key, (map.get(key) ?? 0) + hits);
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (hits === 0 || isIdle(node)) continue;
  add(byFunction, keyOf(node), hits);
  add(byPackage, packageOf(node), hits);
}

// Inclusive time of the project's own functions, each counted once per stack (recursion and a
// function reached twice on one stack are not counted twice).
const inclusive = new Map<string, number>();
function walk(node: ProfileNode, onStack: Set<string>): number {
  let total = isIdle(node) ? 0 : (node.hitCount ?? 0);
  const key = packageOf(node) === "project" ? keyOf(node) : undefined;
  const counts = key !== undefined && !onStack.has(key);
  if (counts) onStack.add(key);
  for (const id of node.children ?? []) {
    const child = nodes.get(id);
    if (child) total += walk(child, onStack);
  }
  if (counts) {
    onStack.delete(key);
    add(inclusive, key, total);
  }
  return total;
}
const root = profile.nodes[0];
if (root) walk(root, new Set());

const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title} (shares of ${busy} busy samples)\n`);
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    process.stdout.write(`${((hits / busy) * 100).toFixed(1).padStart(5)} %  ${key}\n`);
  }
};
show("self time by package", byPackage);
show("self time by function", byFunction);
show("the project's functions with what they call", inclusive);
