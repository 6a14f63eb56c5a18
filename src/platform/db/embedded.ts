import { mkdirSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import type { Database } from "./database.ts";
import { startEmbeddedThread } from "./embedded-thread.ts";

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

/** Answers who holds the socket; null when nobody is listening (a stale socket file). */
function askOwner(path: string): Promise<string | null> {
  return new Promise((done) => {
    const socket = connect(path);
    let answer = "";
    socket.setTimeout(1000);
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => done(answer || "another process"));
    socket.on("timeout", () => {
      socket.destroy();
      done(answer || "another process");
    });
    socket.on("error", (error: NodeJS.ErrnoException) =>
      done(error.code === "ECONNREFUSED" || error.code === "ENOENT" ? null : "another process"),
    );
  });
}

function listen(server: Server, path: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((done) => {
    server.once("error", (error: NodeJS.ErrnoException) => done(error));
    server.listen(path, () => done(null));
  });
}

/**
 * PGlite is single-process: two processes writing one data directory would corrupt it. The lock
 * is a Unix socket this process listens on in the data directory: the kernel drops the listener
 * when the process dies, however it dies, so a lock is never held by a dead process, and no pid
 * is compared (a container's service is pid 1 at every start). A second process connecting to a
 * live one learns its pid and stops with a clear error.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, ".checkout.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = createServer((socket) => socket.end(`process ${process.pid}`));
    const failure = await listen(server, path);
    if (!failure) {
      server.unref();
      return () =>
        new Promise((done) => {
          server.close(() => done());
        });
    }
    if (failure.code !== "EADDRINUSE") throw failure;
    const owner = await askOwner(path);
    if (owner !== null) {
      throw new DataDirLockedError(
        `the embedded database in ${resolve(dataDir)} is in use by ${owner}; ` +
          "stop it first, use another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server",
      );
    }
    // Nobody listens: left by a process that died. Take it over.
    rmSync(path, { force: true });
  }
  throw new DataDirLockedError(`could not lock ${resolve(dataDir)}`);
}

export async function openEmbeddedDatabase(dataDir: string): Promise<Database> {
  const unlock = await lockDataDir(dataDir);
  try {
    // On its own thread: PGlite's WebAssembly no longer shares the one that serves HTTP.
    return await startEmbeddedThread({ dataDir: join(dataDir, "pglite") }, unlock);
  } catch (error) {
    await unlock();
    throw error;
  }
}
