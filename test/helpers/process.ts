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
export async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/**
 * Runs `bin/checkout.js` to its end. A failure says how it ended (exit code or signal) and what
 * it printed: execFile's own message names only the command, which left a CI failure unexplained.
 */
export function checkoutCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["bin/checkout.js", ...args], { env }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ stdout, stderr });
        return;
      }
      const ended = error.signal ? `signal ${error.signal}` : `exit code ${String(error.code)}`;
      reject(new Error(`checkout ${args.join(" ")}: ${ended}\nstderr: ${stderr}\nstdout: ${stdout}`));
    });
  });
}
