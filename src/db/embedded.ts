import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PGlite as PGliteInstance } from "@electric-sql/pglite";
import { type Database, embeddedDatabase } from "./database.ts";

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite is single-process: two processes writing one data directory would corrupt it.
 * A lock file holding the owner's pid turns that into a clear start-up error.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, "checkout.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSync(lockPath, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && processIsAlive(owner)) {
        throw new DataDirLockedError(
          `the embedded database in ${resolve(dataDir)} is in use by process ${owner}; ` +
            "stop it first, use another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server",
        );
      }
      // The owner died without cleaning up: the lock is stale.
      rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`could not lock ${resolve(dataDir)}`);
}

export async function openEmbeddedDatabase(dataDir: string): Promise<Database> {
  const unlock = lockDataDir(dataDir);
  try {
    // Loaded only when used: a service on PostgreSQL never pays for the embedded engine.
    const { PGlite } = await import("@electric-sql/pglite");
    const pglite: PGliteInstance = await PGlite.create(join(dataDir, "pglite"));
    return embeddedDatabase(pglite, async () => unlock());
  } catch (error) {
    unlock();
    throw error;
  }
}
