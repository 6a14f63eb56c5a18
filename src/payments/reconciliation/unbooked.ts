// Paid checkouts the books lost: a processor's checkout of the run's window carrying a transaction
// id we have no payment for (as a primary lost with asynchronous commit leaves them).
import type { Database } from "../../platform/db/database.ts";
import { money } from "../../platform/format/money.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { ListedCheckout, ProcessorAdapter } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import { recordUnbookedCheckout, unbookedAmong } from "./store.ts";

export class UnbookedCheckouts {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly log: Logger,
  ) {}

  /**
   * Lists each processor's checkouts of the window and opens an `unbooked_payment` item for each
   * paid one whose transaction id names no payment of ours and no create attempt we gave up (those
   * are the abandoned checkouts' own items). The number of items opened.
   */
  async find(window: { since: Date; until: Date }): Promise<number> {
    let opened = 0;
    for (const name of this.processors.defaultRoute) {
      const adapter = this.processors.of(name);
      const answer = await callProcessor((signal) => adapter.listCheckouts(window, signal), {
        deadlineMs: LOOKUP_DEADLINE_MS,
      });
      if (answer.kind !== "ok") {
        this.log.warn(
          { processor: name, reason: answer.error.message },
          "could not list the processor's checkouts",
        );
        continue;
      }
      const carrying = answer.value.filter(
        (checkout) =>
          checkout.paid && checkout.transactionIdHint && UUID_PATTERN.test(checkout.transactionIdHint),
      );
      if (carrying.length === 0) continue;
      const unbooked = await unbookedAmong(this.db, name, carrying);
      for (const checkout of carrying.filter((each) => unbooked.has(each.id))) {
        if (await this.flag(adapter, checkout)) opened++;
      }
    }
    return opened;
  }

  private async flag(adapter: ProcessorAdapter, checkout: ListedCheckout): Promise<boolean> {
    const paymentRef = checkout.paymentRef;
    // What the processor gave back already: refunds made there for this payment.
    const remote = paymentRef
      ? await callProcessor((signal) => adapter.lookUpPayment(paymentRef, signal), {
          deadlineMs: LOOKUP_DEADLINE_MS,
        })
      : null;
    const refunded = remote?.kind === "ok" ? (remote.value?.amountRefunded ?? 0) : 0;
    const detail =
      `${money(checkout.amount, checkout.currency)} paid at ${adapter.name} on checkout ${checkout.id}` +
      `${paymentRef ? ` (payment ${paymentRef})` : ""}, carrying transaction id ${checkout.transactionIdHint}, ` +
      `which has no payment here; refunded at ${adapter.name} so far: ${money(refunded, checkout.currency)}`;
    const opened = await recordUnbookedCheckout(this.db, {
      processor: adapter.name,
      checkout,
      refundedAmount: refunded,
      detail,
    });
    if (opened)
      this.log.warn(
        { processor: adapter.name, checkoutId: checkout.id },
        "paid checkout missing from the books",
      );
    return opened;
  }
}
