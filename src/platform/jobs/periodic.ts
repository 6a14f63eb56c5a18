import type { Logger } from "../telemetry/logger.ts";

export interface Worker {
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs` in the background, never two at once on this instance. Several
 * instances may run the same work: each use case claims its rows, so only one of them acts.
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  work: () => Promise<unknown>,
  log: Logger,
): Worker {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return; // a slow round is not stacked on
    running = work()
      .catch((error: Error) => log.warn({ reason: error.message }, `${name} failed; it runs again shortly`))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
