import type { FastifyBaseLogger } from "fastify";
import { applyProcessorFact } from "../processor/apply.ts";
import type { Services } from "../services.ts";

const BATCH_SIZE = 100;

/**
 * Expires processing payments whose link ran out. The processor is asked first, so a payment
 * completed in the last second becomes succeeded instead. Several instances may sweep at once:
 * each change is a conditional UPDATE, so only one of them applies it.
 */
export async function sweepExpiredPayments(services: Services, log: FastifyBaseLogger): Promise<number> {
  const due = await services.db.query<{ id: string; processor_session_id: string | null }>(
    `SELECT id, processor_session_id FROM payments
     WHERE status = 'processing' AND expires_at <= now() ORDER BY expires_at LIMIT $1`,
    [BATCH_SIZE],
  );
  let changed = 0;
  for (const payment of due) {
    try {
      let paid = false;
      let paymentIntentId: string | null = null;
      if (payment.processor_session_id) {
        const session = await services.processor.expireCheckoutSession(payment.processor_session_id);
        paid = session.paid;
        paymentIntentId = session.paymentIntentId;
      }
      const outcome = await services.db.transaction((tx) =>
        applyProcessorFact(
          tx,
          payment.id,
          paid ? { kind: "paid", paymentIntentId } : { kind: "expired" },
          "expiry_sweep",
        ),
      );
      changed += outcome.changes.length;
      if (outcome.changes.some((change) => change.queuedWebhook)) services.outbox.wake();
    } catch (error) {
      // Left processing; the next sweep tries again once the processor answers.
      log.warn({ err: error, transactionId: payment.id }, "could not expire payment");
    }
  }
  return changed;
}

export function startExpirySweeper(services: Services, log: FastifyBaseLogger): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return; // a slow sweep is not stacked on
    running = sweepExpiredPayments(services, log)
      .catch((error) => log.warn({ err: error }, "expiry sweep failed"))
      .finally(() => {
        running = undefined;
      });
  }, services.config.expirySweepIntervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
