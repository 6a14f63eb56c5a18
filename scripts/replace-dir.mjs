import { existsSync, renameSync, rmSync } from "node:fs";

/**
 * Puts the finished tree `next` in place of `target` by renames: a service or test run reading
 * `target` never sees it half-deleted or half-written.
 */
export function replaceDir(next, target) {
  const old = `${target}.old-${process.pid}`;
  rmSync(old, { recursive: true, force: true });
  if (existsSync(target)) renameSync(target, old);
  renameSync(next, target);
  rmSync(old, { recursive: true, force: true });
}
