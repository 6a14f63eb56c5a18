// The sandbox's own erasure of a customer, as a processor's erasure process would do it: their
// addresses leave every object and recorded request that held them, and the item names of their
// checkouts go too (they held the merchant's description).
import type { SandboxState, SquarePaymentLink } from "./state.ts";

/** Whether any string inside `value` is one `matches` picks. */
function holdsAny(value: unknown, matches: (text: string) => boolean): boolean {
  if (typeof value === "string") return matches(value);
  if (Array.isArray(value)) return value.some((item) => holdsAny(item, matches));
  if (value !== null && typeof value === "object") {
    return Object.values(value).some((item) => holdsAny(item, matches));
  }
  return false;
}

/** The object with every matching string set to null and its item name (Stripe's session) replaced. */
function scrub<T>(value: T, matches: (text: string) => boolean): T {
  if (typeof value === "string") return (matches(value) ? null : value) as T;
  if (Array.isArray(value)) return value.map((item) => scrub(item, matches)) as T;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, item]) => [
      key,
      key === "line_item_name" ? "Payment" : scrub(item, matches),
    ]);
    return Object.fromEntries(entries) as T;
  }
  return value;
}

/** Forgets these customers (e-mail addresses, any case); the caller flushes the state. */
export function forgetCustomers(state: SandboxState, emails: readonly string[]): void {
  const forgotten = new Set(emails.map((email) => email.toLowerCase()));
  const matches = (text: string) => forgotten.has(text.toLowerCase());
  const erasedOrders = new Set<string>();
  for (const { kind, id, body } of [...state.everyObject()]) {
    if (!holdsAny(body, matches)) continue;
    if (kind === "square_link") erasedOrders.add((body as SquarePaymentLink).order_id);
    state.put(kind, id, scrub(body, matches));
  }
  for (const orderId of erasedOrders) {
    const order = state.squareOrders.get(orderId);
    if (!order) continue;
    for (const item of order.line_items) item.name = "Payment";
    state.put("square_order", orderId, order);
  }
  for (const request of state.requests) {
    if (holdsAny(request.body, matches)) request.body = { erased: true };
  }
}
