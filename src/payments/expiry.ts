import type { FastifyBaseLogger } from "fastify";
import type { PaymentsService } from "./service.ts";

/**
 * Expires links in the background, with no request needed. Several instances may sweep at once:
 * each change is a conditional update, so only one of them applies it.
 */
export function startExpirySweeper(
  payments: PaymentsService,
  intervalMs: number,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return; // a slow sweep is not stacked on
    running = payments
      .expireDue()
      .catch((error) => log.warn({ err: error }, "expiry sweep failed"))
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
