import { setTimeout as sleep } from "node:timers/promises";

/** Polls until `check` returns a value (not undefined), or fails after the timeout. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}
