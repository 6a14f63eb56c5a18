// Summarises a .cpuprofile: where self time goes, by function and by package.
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [file, top = "25"] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary FILE.cpuprofile [TOP]");
const profile = JSON.parse(await readFile(file, "utf8")) as { nodes: ProfileNode[] };
const projectRoot = new URL("..", import.meta.url).href;
const total = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (hits === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^file:\/\/.*?node_modules\//, "").replace(projectRoot, "");
  const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  const pkg = url.includes("node_modules/")
    ? (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? "?")
    : url.startsWith("node:") || url === ""
      ? functionName.startsWith("(")
        ? functionName
        : "node internals"
      : "project";
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + hits);
}
const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    process.stdout.write(`${((hits / total) * 100).toFixed(1).padStart(5)} %  ${key}\n`);
  }
};
show("self time by package", byPackage);
show("self time by function", byFunction);
