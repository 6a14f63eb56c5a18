// Compiles src/ to dist/ (plain JavaScript: no loader thread, no on-the-fly transforms at run time)
// and copies the SQL migrations beside the compiled migration runner.
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
rmSync("dist", { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"],
  {
    stdio: "inherit",
  },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
cpSync("src/db/migrations", "dist/src/db/migrations", { recursive: true });
