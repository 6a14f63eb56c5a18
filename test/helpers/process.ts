import { execFile, spawn } from "node:child_process";
import { createServer, type Server } from "node:net";

/**
 * The service in its own process: `npm start`'s compiled JavaScript (npm test builds it first),
 * or the TypeScript sources with `source: true`. Sandbox processor and embedded database unless
 * the environment says otherwise.
 */
export function startProcess(env: Record<string, string>, options: { source?: boolean } = {}) {
  const entry = options.source ? ["--import", "tsx", "src/main.ts"] : ["dist/src/main.js"];
  // As the test processes themselves (scripts/run-tests.mjs): a short-lived process needs only
  // the baseline compile of PGlite's WebAssembly. It changes no behaviour, only the CPU spent.
  const child = spawn(process.execPath, ["--liftoff-only", ...entry], {
    env: {
      ...process.env,
      PORT: "0",
      SANDBOX_PORT: "0",
      DATABASE_URL: "",
      SHUTDOWN_GRACE_SECONDS: "0.2",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A failed assertion must not leave a service running after the test file ends.
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // A process expected to fail never starts; its rejection is read through `exited` instead.
  const started = new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"checkout service started"/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on("data", check);
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  started.catch(() => {});
  return { child, exited, started, output: () => ({ stdout, stderr }) };
}

/** Log lines (JSON) a process wrote to stdout. */
export const logLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A port something else already holds. */
type Occupied = { port: number; server: Server };

export async function occupiedPort(): Promise<Occupied> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** Two ports side by side, both taken (PORT and the sandbox's default, PORT + 1). */
export async function occupiedNeighbours(): Promise<[Occupied, Occupied]> {
  for (let tries = 0; tries < 20; tries++) {
    const first = await occupiedPort();
    const second = createServer();
    const took = await new Promise<boolean>((resolve) => {
      second.once("error", () => resolve(false));
      second.listen(first.port + 1, "127.0.0.1", () => resolve(true));
    });
    if (took) return [first, { port: first.port + 1, server: second }];
    first.server.close();
  }
  throw new Error("no two neighbouring free ports in 20 tries");
}

/** How a `bin/checkout.js` run failed: its exit code or signal, and everything it printed. */
export class CliFailure extends Error {
  constructor(
    args: string[],
    readonly code: number | string | null | undefined,
    readonly signal: NodeJS.Signals | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    // execFile's own message names only the command, which once left a CI failure unexplained.
    super(
      `checkout ${args.join(" ")}: ${signal ? `signal ${signal}` : `exit code ${String(code)}`}\nstderr: ${stderr}\nstdout: ${stdout}`,
    );
  }
}

/** Runs `bin/checkout.js` to its end; a failure rejects with a `CliFailure`. */
export function checkoutCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["bin/checkout.js", ...args], { env }, (error, stdout, stderr) => {
      if (error) reject(new CliFailure(args, error.code, error.signal ?? null, stdout, stderr));
      else resolve({ stdout, stderr });
    });
  });
}
