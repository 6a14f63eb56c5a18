// DATA_DIR holds the embedded database, the development secrets key and the unused admin token:
// it is the service's own, readable by nobody else, whoever made it and however old its files.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

/** Directories 0700, files 0600: only the service's user reads or writes any of it. */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Makes DATA_DIR private: the directory and everything already in it (an older start, or an
 * embedded database that wrote its files 0666), and, through the process's umask, everything
 * any thread of this process writes there from now on.
 */
export function securePrivateDataDir(dataDir: string): void {
  // The umask is the process's: it also covers files the embedded database's thread creates.
  if (isMainThread) process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  restrict(dataDir);
}

function restrict(path: string): void {
  const stats = lstatSync(path);
  // A link is followed by nobody here; what it points at is not ours to change.
  if (stats.isSymbolicLink()) return;
  if (stats.isDirectory()) {
    if ((stats.mode & 0o777) !== PRIVATE_DIR) chmodSync(path, PRIVATE_DIR);
    for (const entry of readdirSync(path)) restrict(join(path, entry));
  } else if ((stats.mode & 0o777 & ~PRIVATE_FILE) !== 0) {
    chmodSync(path, stats.mode & PRIVATE_FILE);
  }
}
