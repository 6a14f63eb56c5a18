import { createHmac, randomUUID } from "node:crypto";
import type { EventSender } from "../events.ts";

/** Square's webhook signature: base64 HMAC-SHA256 of the notification URL followed by the body. */
export function squareSignature(payload: string, signatureKey: string, notificationUrl: string): string {
  return createHmac("sha256", signatureKey).update(notificationUrl).update(payload).digest("base64");
}

/** The headers that sign a Square event sent to `notificationUrl`. */
export const signSquare = (signatureKey: string) => (payload: string, notificationUrl: string) => ({
  "x-square-hmacsha256-signature": squareSignature(payload, signatureKey, notificationUrl),
});

/** The merchant id the sandbox's Square account has. */
export const SANDBOX_MERCHANT_ID = "MLSANDBOX00000";

/** Sends one Square event: `data.object` holds the object under its type's name. */
export function sendSquareEvent(
  sender: EventSender,
  type: string,
  objectType: "payment" | "refund" | "dispute",
  object: { id: string },
): void {
  const eventId = randomUUID();
  sender.send(eventId, type, {
    merchant_id: SANDBOX_MERCHANT_ID,
    type,
    event_id: eventId,
    created_at: new Date().toISOString(),
    data: { type: objectType, id: object.id, object: { [objectType]: object } },
  });
}
