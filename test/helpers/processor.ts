import {
  type Checkout,
  type CheckoutRequest,
  type ProcessorAdapter,
  ProcessorUnavailableError,
} from "../../src/processor/port.ts";

/** An open checkout, as a processor answers a create. */
export const openCheckout = (request: CheckoutRequest): Checkout => ({
  id: `cs_${request.transactionId}`,
  url: "https://checkout.processor.example/pay",
  status: "open",
  paid: false,
  paymentRef: null,
});

/** A processor adapter that answers nothing (every call fails as unreachable) unless told otherwise. */
export function unreachableProcessor(overrides: Partial<ProcessorAdapter> = {}): ProcessorAdapter {
  const down = async (): Promise<never> => {
    throw new ProcessorUnavailableError("connection refused");
  };
  return {
    name: "stripe",
    limits: { checkoutLifetimeSeconds: { min: 1, max: 86400 }, idempotencyKeyLifetimeMs: 86_400_000 },
    takes: () => true,
    createCheckout: down,
    lookUpCheckout: down,
    triedThrough: down,
    listCheckouts: down,
    expireCheckout: down,
    lookUpPayment: down,
    transactionIdOf: down,
    refund: down,
    lookUpRefund: down,
    lookUpDispute: down,
    sendDisputeEvidence: down,
    acceptDispute: down,
    parseEvent: () => {
      throw new Error("no events");
    },
    ...overrides,
  };
}
