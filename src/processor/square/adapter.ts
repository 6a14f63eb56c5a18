import { type Square, SquareClient } from "square";
import {
  type Checkout,
  CheckoutNotFoundError,
  type CheckoutRequest,
  type ListedCheckout,
  moneyCallError,
  type ProcessorAdapter,
  type ProcessorDispute,
  type ProcessorLimits,
  type ProcessorPayment,
  type ProcessorRefund,
  ProcessorRefusedError,
  type RefundReason,
} from "../port.ts";
import { ask, isMissing, outcomeOf, requestOptions } from "./calls.ts";
import { fromSdkDispute, squareDisputeCalls } from "./dispute-calls.ts";
import {
  currencyOf,
  interpretSquareEvent,
  minorUnits,
  toProcessorRefund,
  verifySquareSignature,
} from "./events.ts";

export interface SquareAdapterOptions {
  accessToken: string;
  locationId: string;
  webhookSignatureKey: string;
  /** The notification URL as registered at Square: its signature covers it. */
  webhookUrl: () => string;
  /** Any Square-compatible endpoint (the sandbox); unset means Square's production API. */
  apiUrl?: string | undefined;
  timeoutMs?: number;
  onLocationError?: (error: Error) => void;
}

const SQUARE_PRODUCTION_API = "https://connect.squareup.com";

/** How often the location's currency is asked for again while Square does not answer. */
const LOCATION_RETRY_MS = 30_000;

/**
 * Square's payment links never expire (the service deletes them at the payment's expiry), so any
 * lifetime fits; Square keeps an idempotency key at least 24 hours (23, to be safe).
 */
export const SQUARE_LIMITS: ProcessorLimits = {
  checkoutLifetimeSeconds: { min: 1, max: 365 * 86400 },
  idempotencyKeyLifetimeMs: 23 * 60 * 60 * 1000,
};

/** Square's refund reason is free text, shown to the seller: ours in words. */
const SQUARE_REFUND_REASON: Record<RefundReason, string> = {
  requested_by_customer: "Requested by customer",
  duplicate: "Duplicate payment",
  fraudulent: "Fraudulent payment",
};

/** The payment an order was paid with: Square's tender id of a card tender is its payment id. */
const paymentIdOf = (order: Square.Order | undefined): string | null => {
  const tender = order?.tenders?.[0];
  return tender?.paymentId ?? tender?.id ?? null;
};

/**
 * Square through its official SDK: a checkout is a payment link whose order carries
 * our transaction id as `reference_id`. Links do not expire at Square: expiring one deletes it.
 */
export function squareAdapter(options: SquareAdapterOptions): ProcessorAdapter {
  const client = new SquareClient({
    token: options.accessToken,
    baseUrl: options.apiUrl ?? SQUARE_PRODUCTION_API,
    timeoutInSeconds: (options.timeoutMs ?? 20000) / 1000,
    maxRetries: 2,
  });
  let locationCurrency: string | null = null;

  // A location takes one currency; until it is known, Square takes none.
  const ready = new Promise<void>((resolve, reject) => {
    const readLocation = async (): Promise<void> => {
      try {
        const { location } = await client.locations.get({ locationId: options.locationId });
        if (!location?.currency) throw new Error(`location ${options.locationId} has no currency`);
        locationCurrency = location.currency.toLowerCase();
        resolve();
      } catch (error) {
        if (outcomeOf(error) === "refused") {
          reject(
            new Error(`Square refused to read location ${options.locationId}: ${(error as Error).message}`),
          );
          return;
        }
        options.onLocationError?.(error as Error);
        setTimeout(() => void readLocation(), LOCATION_RETRY_MS).unref();
      }
    };
    void readLocation();
  });
  // A failure is reported through `start`; nobody else needs to hear it.
  ready.catch(() => {});

  const orderOf = async (
    orderId: string | undefined,
    abortSignal: AbortSignal | undefined,
  ): Promise<Square.Order | undefined> =>
    orderId ? (await client.orders.get({ orderId }, requestOptions(abortSignal))).order : undefined;

  const toCheckout = (link: Square.PaymentLink, order: Square.Order | undefined): Checkout => {
    const paid = order?.state === "COMPLETED" || (order?.tenders?.length ?? 0) > 0;
    return {
      id: link.id ?? "",
      url: link.url ?? link.longUrl ?? "",
      status: paid ? "finished" : order?.state === "CANCELED" ? "expired" : "open",
      paid,
      paymentRef: paid ? paymentIdOf(order) : null,
    };
  };

  const retrieveLink = async (
    linkId: string,
    abortSignal: AbortSignal | undefined,
  ): Promise<Square.PaymentLink> => {
    try {
      const { paymentLink } = await client.checkout.paymentLinks.get(
        { id: linkId },
        requestOptions(abortSignal),
      );
      if (!paymentLink) throw new CheckoutNotFoundError(`checkout ${linkId} does not exist`);
      return paymentLink;
    } catch (error) {
      if (isMissing(error)) throw new CheckoutNotFoundError(`checkout ${linkId} does not exist`);
      throw error;
    }
  };

  return {
    name: "square",
    limits: SQUARE_LIMITS,
    /** Resolves once the location's currency is known; rejects when Square refuses the settings. */
    start: () => ready,
    takes: (currency) => currency === locationCurrency,
    async createCheckout(request: CheckoutRequest, abortSignal): Promise<Checkout> {
      try {
        const answer = await client.checkout.paymentLinks.create(
          {
            idempotencyKey: request.idempotencyKey,
            order: {
              locationId: options.locationId,
              referenceId: request.transactionId,
              lineItems: [
                {
                  name: request.lineItemName,
                  quantity: "1",
                  basePriceMoney: {
                    amount: BigInt(request.amount),
                    currency: request.currency.toUpperCase() as Square.Currency,
                  },
                },
              ],
            },
            checkoutOptions: { redirectUrl: request.returnUrl },
            prePopulatedData: { buyerEmail: request.customerEmail },
          },
          requestOptions(abortSignal),
        );
        const link = answer.paymentLink;
        if (!link?.id) throw new Error("Square answered without a payment link");
        return toCheckout(link, answer.relatedResources?.orders?.[0]);
      } catch (error) {
        throw moneyCallError("checkout create", error, outcomeOf(error));
      }
    },
    lookUpCheckout: (linkId, abortSignal) =>
      ask("checkout retrieve", async () => {
        const link = await retrieveLink(linkId, abortSignal);
        return toCheckout(link, await orderOf(link.orderId, abortSignal));
      }),
    // A declined payment is no tender of the order, but it names the order it was tried for.
    triedThrough: (linkId, paymentRef, abortSignal) =>
      ask("payment retrieve", async () => {
        try {
          const [link, { payment }] = await Promise.all([
            retrieveLink(linkId, abortSignal),
            client.payments.get({ paymentId: paymentRef }, requestOptions(abortSignal)),
          ]);
          return link.orderId !== undefined && payment?.orderId === link.orderId;
        } catch (error) {
          if (error instanceof CheckoutNotFoundError || isMissing(error)) return false;
          throw error;
        }
      }),
    // Orders carry our transaction id; a link names its order, not the other way round.
    listCheckouts: (window, abortSignal) =>
      ask("order search", async () => {
        const listed: ListedCheckout[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.orders.search(
            {
              locationIds: [options.locationId],
              query: {
                filter: {
                  dateTimeFilter: {
                    createdAt: { startAt: window.since.toISOString(), endAt: window.until.toISOString() },
                  },
                },
              },
              limit: 500,
              ...(cursor && { cursor }),
            },
            requestOptions(abortSignal),
          );
          for (const order of page.orders ?? []) {
            const paid = order.state === "COMPLETED" || (order.tenders?.length ?? 0) > 0;
            listed.push({
              id: order.id ?? "",
              transactionIdHint: order.referenceId ?? null,
              paid,
              paymentRef: paid ? paymentIdOf(order) : null,
              amount: minorUnits(order.totalMoney) ?? 0,
              currency: currencyOf(order.totalMoney) ?? "",
              createdAt: new Date(order.createdAt ?? 0),
            });
          }
          cursor = page.cursor ?? undefined;
        } while (cursor);
        return listed;
      }),
    // Deleting a link cancels its order; a payment that completed first wins.
    expireCheckout: (linkId, abortSignal) =>
      ask("checkout expire", async () => {
        const link = await retrieveLink(linkId, abortSignal);
        const before = toCheckout(link, await orderOf(link.orderId, abortSignal));
        if (before.status !== "open") return before;
        try {
          await client.checkout.paymentLinks.delete({ id: linkId }, requestOptions(abortSignal));
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
        const after = toCheckout(link, await orderOf(link.orderId, abortSignal));
        return after.paid ? after : { ...after, status: "expired" };
      }),
    lookUpPayment: (paymentRef, abortSignal) =>
      ask("payment look-up", async (): Promise<ProcessorPayment | null> => {
        let payment: Square.Payment | undefined;
        try {
          payment = (await client.payments.get({ paymentId: paymentRef }, requestOptions(abortSignal)))
            .payment;
        } catch (error) {
          if (isMissing(error)) return null;
          throw error;
        }
        if (!payment) return null;
        const refunds = await Promise.all(
          (payment.refundIds ?? []).map(async (refundId) => {
            const { refund } = await client.refunds.get({ refundId }, requestOptions(abortSignal));
            return refund;
          }),
        );
        const disputes: ProcessorDispute[] = [];
        const list = await client.disputes.list(
          { locationId: options.locationId },
          requestOptions(abortSignal),
        );
        for await (const dispute of list) {
          if (dispute.disputedPayment?.paymentId !== paymentRef) continue;
          disputes.push(fromSdkDispute(dispute));
        }
        return {
          ref: paymentRef,
          amount: minorUnits(payment.amountMoney) ?? 0,
          currency: currencyOf(payment.amountMoney) ?? "",
          amountRefunded: minorUnits(payment.refundedMoney) ?? 0,
          refunds: refunds.flatMap((refund) => (refund ? [fromSdkRefund(refund)] : [])),
          disputes,
        };
      }),
    transactionIdOf: (paymentRef, abortSignal) =>
      ask("payment retrieve", async () => {
        try {
          const { payment } = await client.payments.get(
            { paymentId: paymentRef },
            requestOptions(abortSignal),
          );
          return (await orderOf(payment?.orderId, abortSignal))?.referenceId ?? null;
        } catch (error) {
          if (isMissing(error)) return null;
          throw error;
        }
      }),
    async refund(request, abortSignal): Promise<ProcessorRefund> {
      const payment = await ask("payment retrieve", () =>
        client.payments.get({ paymentId: request.paymentRef }, requestOptions(abortSignal)),
      );
      const currency = payment.payment?.amountMoney?.currency;
      if (!currency) throw new ProcessorRefusedError(`Square has no payment ${request.paymentRef}`);
      try {
        const { refund } = await client.refunds.refundPayment(
          {
            idempotencyKey: request.idempotencyKey,
            paymentId: request.paymentRef,
            amountMoney: { amount: BigInt(request.amount), currency },
            ...(request.reason && { reason: SQUARE_REFUND_REASON[request.reason] }),
          },
          requestOptions(abortSignal),
        );
        if (!refund) throw new Error("Square answered without a refund");
        return fromSdkRefund(refund);
      } catch (error) {
        throw moneyCallError("refund", error, outcomeOf(error));
      }
    },
    lookUpRefund: (processorRefundId, abortSignal) =>
      ask("refund retrieve", async () => {
        try {
          const { refund } = await client.refunds.get(
            { refundId: processorRefundId },
            requestOptions(abortSignal),
          );
          return refund ? fromSdkRefund(refund) : null;
        } catch (error) {
          if (isMissing(error)) return null;
          throw error;
        }
      }),
    ...squareDisputeCalls(client),
    parseEvent: (rawBody, headers) => {
      verifySquareSignature(
        rawBody,
        headers["x-square-hmacsha256-signature"],
        options.webhookSignatureKey,
        options.webhookUrl(),
      );
      return interpretSquareEvent(rawBody);
    },
  };
}

const fromSdkRefund = (refund: Square.PaymentRefund): ProcessorRefund =>
  toProcessorRefund({ id: refund.id, status: refund.status ?? null, amount: minorUnits(refund.amountMoney) });
