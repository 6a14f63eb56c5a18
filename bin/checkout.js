#!/usr/bin/env node
// The CLI is TypeScript like the rest; tsx compiles it on load.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
