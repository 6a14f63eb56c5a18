// Writes the OpenAPI document (docs/openapi.json) and the client's types generated from it
// (packages/client/src/generated/api.ts). With --check it writes nothing and fails when either
// differs from what the routes produce now: CI's drift check.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { loadConfig } from "../src/config/config.ts";
import { startService } from "../src/server/lifecycle.ts";

const DOCUMENT = "docs/openapi.json";
const TYPES = "packages/client/src/generated/api.ts";

const dataDir = mkdtempSync(join(tmpdir(), "openapi-"));
const service = await startService(
  loadConfig({
    PORT: "0",
    SANDBOX_PORT: "0",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    PUBLIC_URL: "http://localhost:3000",
    SHUTDOWN_GRACE_SECONDS: "0",
  }),
  { workers: false },
);
let document: Record<string, unknown>;
try {
  document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
const documentText = `${JSON.stringify(document, null, 2)}\n`;
const types = `// Generated from docs/openapi.json by \`npm run openapi\`; do not edit.\n${astToString(
  await openapiTS(document as never, { alphabetize: false }),
)}`;

const wanted: [string, string][] = [
  [DOCUMENT, documentText],
  [TYPES, types],
];
if (process.argv.includes("--check")) {
  const stale = wanted.filter(([path, text]) => {
    try {
      return readFileSync(path, "utf8") !== text;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(
      `out of date: ${stale.map(([path]) => path).join(", ")}; run \`npm run openapi\` and commit`,
    );
    process.exit(1);
  }
  console.log("openapi: the document and the client's types match the routes");
} else {
  for (const [path, text] of wanted) writeFileSync(path, text);
  console.log(`wrote ${DOCUMENT} and ${TYPES}`);
}
