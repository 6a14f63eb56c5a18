#!/usr/bin/env node
// The CLI runs the compiled service (npm run build writes dist/), as production does.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write("checkout: the service is not built yet; run `npm run build` first\n");
  process.exit(1);
}
await import(compiled.href);
