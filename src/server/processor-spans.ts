// While traces are on, the client spans of a processor's HTTP calls carry its name
// (`checkout.processor`): the adapters know nothing of traces, so the composition root wraps them.

import { tracing } from "../platform/telemetry/tracing.ts";
import type { ProcessorAdapter } from "../processor/port.ts";

/** The adapter's calls that go to the processor. */
const PROCESSOR_CALLS = [
  "createCheckout",
  "lookUpCheckout",
  "expireCheckout",
  "lookUpPayment",
  "transactionIdOf",
  "refund",
  "lookUpRefund",
] as const;

/** While traces are on, the client spans of an adapter's HTTP calls carry the processor's name. */
export function namedInTraces(adapter: ProcessorAdapter): ProcessorAdapter {
  if (!tracing().on) return adapter;
  const named = Object.create(adapter) as ProcessorAdapter;
  for (const call of PROCESSOR_CALLS) {
    const original = adapter[call] as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(named, call, {
      value: (...args: unknown[]) => tracing().asProcessor(adapter.name, () => original.apply(adapter, args)),
    });
  }
  return named;
}
