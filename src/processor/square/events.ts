import { createHmac, timingSafeEqual } from "node:crypto";
import {
  InvalidEventError,
  NOT_ACTED_ON,
  type ProcessorEvent,
  type ProcessorRefund,
  type ProcessorRefundStatus,
} from "../port.ts";
import { toProcessorDispute } from "./disputes.ts";

/** Square's money as it travels in events (JSON numbers) and in the SDK (bigint). */
type Money = { amount?: number | bigint | null; currency?: string | null } | null | undefined;

export const minorUnits = (money: Money): number | null =>
  money?.amount === undefined || money.amount === null ? null : Number(money.amount);

export const currencyOf = (money: Money): string | null => money?.currency?.toLowerCase() ?? null;

/** Square's refund statuses in ours: REJECTED and FAILED refunds gave nothing back. */
export function refundStatusOf(status: string | null | undefined): ProcessorRefundStatus {
  if (status === "COMPLETED") return "succeeded";
  if (status === "REJECTED" || status === "FAILED") return "failed";
  return "pending";
}

/** A Square refund, read from an event (snake_case JSON) or the SDK (camelCase). */
export function toProcessorRefund(refund: {
  id: string;
  status?: string | null;
  amount: number | null;
}): ProcessorRefund {
  // Square carries no metadata on refunds: our refund id is known only from what we stored.
  return {
    id: refund.id,
    amount: refund.amount ?? 0,
    status: refundStatusOf(refund.status),
    refundIdHint: null,
  };
}

/**
 * Square's signature: base64 HMAC-SHA256 of the notification URL followed by the raw body, keyed
 * with the subscription's signature key. Compared in constant time, unlike the SDK's helper.
 */
export function verifySquareSignature(
  rawBody: Buffer,
  signature: string | string[] | undefined,
  signatureKey: string,
  notificationUrl: string,
): void {
  if (typeof signature !== "string")
    throw new InvalidEventError("missing x-square-hmacsha256-signature header");
  const expected = createHmac("sha256", signatureKey).update(notificationUrl).update(rawBody).digest();
  const given = Buffer.from(signature, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidEventError("Square signature does not match");
  }
}

type EventFields = Omit<ProcessorEvent, "id" | "type">;

interface SquareNotification {
  event_id?: unknown;
  type?: unknown;
  data?: { object?: Record<string, unknown> };
}

type Json = Record<string, unknown>;
const objectAt = (value: unknown, key: string): Json | undefined => {
  const inner = (value as Json | undefined)?.[key];
  return inner && typeof inner === "object" ? (inner as Json) : undefined;
};
const textAt = (value: Json | undefined, key: string): string | null =>
  typeof value?.[key] === "string" ? (value[key] as string) : null;
const moneyAt = (value: Json | undefined, key: string): Money => objectAt(value, key) as Money;

/** Square's events mapped to neutral actions (docs/api.md, "Processor events"); events we do not act on carry none. */
export function interpretSquareEvent(rawBody: Buffer): ProcessorEvent {
  let notification: SquareNotification;
  try {
    notification = JSON.parse(rawBody.toString("utf8")) as SquareNotification;
  } catch {
    throw new InvalidEventError("event body is not JSON");
  }
  const id = typeof notification.event_id === "string" ? notification.event_id : null;
  const type = typeof notification.type === "string" ? notification.type : null;
  if (!id || !type) throw new InvalidEventError("event has no event_id or type");
  return { id, type, ...fieldsOf(type, notification.data?.object) };
}

function fieldsOf(type: string, object: Json | undefined): EventFields {
  switch (type) {
    case "payment.created":
    case "payment.updated": {
      const payment = objectAt(object, "payment");
      const paymentRef = textAt(payment, "id");
      if (!payment || !paymentRef) return NOT_ACTED_ON;
      const status = textAt(payment, "status");
      const refunded = minorUnits(moneyAt(payment, "refunded_money")) ?? 0;
      const fields = {
        ...NOT_ACTED_ON,
        paymentRef,
        amount: minorUnits(moneyAt(payment, "amount_money")),
        currency: currencyOf(moneyAt(payment, "amount_money")),
      };
      if (status === "FAILED") return { ...fields, action: { kind: "failed" } };
      if (status !== "COMPLETED") return fields;
      if (refunded > 0) return { ...fields, action: { kind: "refunded", amountRefunded: refunded } };
      return { ...fields, action: { kind: "paid" } };
    }
    case "refund.created":
    case "refund.updated": {
      const refund = objectAt(object, "refund");
      const refundId = textAt(refund, "id");
      if (!refund || !refundId) return NOT_ACTED_ON;
      return {
        ...NOT_ACTED_ON,
        action: {
          kind: "refund_settled",
          refund: toProcessorRefund({
            id: refundId,
            status: textAt(refund, "status"),
            amount: minorUnits(moneyAt(refund, "amount_money")),
          }),
        },
        paymentRef: textAt(refund, "payment_id"),
        currency: currencyOf(moneyAt(refund, "amount_money")),
      };
    }
    case "dispute.created":
    case "dispute.state.updated": {
      const raw = objectAt(object, "dispute");
      const paymentRef = textAt(objectAt(raw, "disputed_payment"), "payment_id");
      const id = textAt(raw, "id") ?? textAt(raw, "dispute_id");
      if (!raw || !paymentRef || !id) return NOT_ACTED_ON;
      const dispute = toProcessorDispute({
        id,
        state: textAt(raw, "state"),
        reason: textAt(raw, "reason"),
        amount: minorUnits(moneyAt(raw, "amount_money")),
        currency: currencyOf(moneyAt(raw, "amount_money")),
        dueAt: textAt(raw, "due_at"),
      });
      const fields = { ...NOT_ACTED_ON, paymentRef, currency: dispute.currency || null };
      if (type === "dispute.created") return { ...fields, action: { kind: "disputed", dispute } };
      // ACCEPTED: the seller gave the money up, as good as lost for the payment.
      if (dispute.status === "won" || dispute.status === "lost" || dispute.status === "accepted") {
        const outcome = dispute.status === "won" ? "won" : "lost";
        return { ...fields, action: { kind: "dispute_closed", outcome, dispute } };
      }
      return { ...fields, action: { kind: "dispute_updated", dispute } };
    }
    default:
      return NOT_ACTED_ON;
  }
}
