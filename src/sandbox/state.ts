import { randomBytes } from "node:crypto";

/** The processors the sandbox emulates; each has its own API, events and faults. */
export type SandboxProcessor = "stripe" | "square";

/** Stripe-shaped objects, trimmed to the fields the service and the SDK read. */
export interface SandboxSession {
  id: string;
  object: "checkout.session";
  mode: "payment";
  livemode: false;
  created: number;
  url: string | null;
  status: "open" | "complete" | "expired";
  payment_status: "paid" | "unpaid";
  amount_total: number;
  currency: string;
  customer_email: string | null;
  /** The one line item's name (Stripe keeps it on the line item; the test page shows it). */
  line_item_name?: string;
  expires_at: number;
  success_url: string;
  cancel_url: string;
  metadata: Record<string, string>;
  payment_intent: string | null;
  payment_intent_metadata: Record<string, string>;
}

export interface SandboxPaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  currency: string;
  status: "requires_payment_method" | "succeeded";
  latest_charge: string | null;
  metadata: Record<string, string>;
  created: number;
}

export interface SandboxCharge {
  id: string;
  object: "charge";
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  /** Set by the refund-failure test card. */
  refunds_fail: boolean;
  currency: string;
  payment_intent: string;
  metadata: Record<string, string>;
  created: number;
}

export interface SandboxDispute {
  id: string;
  object: "dispute";
  amount: number;
  currency: string;
  charge: string;
  payment_intent: string;
  reason: string;
  status: "needs_response" | "under_review" | "won" | "lost";
  /** The text evidence filed so far, by Stripe's field names. */
  evidence: Record<string, string>;
  evidence_details: { due_by: number; has_evidence: boolean; past_due: boolean; submission_count: number };
  created: number;
}

export interface SandboxRefund {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  payment_intent: string;
  status: "succeeded";
  reason: string | null;
  currency: string;
  metadata: Record<string, string>;
  created: number;
}

/** Square-shaped objects (snake_case JSON, as Square's REST API), trimmed to what the SDK reads. */
export interface SquareMoney {
  amount: number;
  currency: string;
}

export interface SquarePaymentLink {
  id: string;
  version: number;
  order_id: string;
  url: string;
  long_url: string;
  created_at: string;
  checkout_options: { redirect_url: string };
  pre_populated_data: { buyer_email?: string };
}

export interface SquareOrder {
  id: string;
  location_id: string;
  reference_id?: string;
  line_items: { uid: string; name: string; quantity: string; base_price_money: SquareMoney }[];
  total_money: SquareMoney;
  tenders?: { id: string; payment_id: string; type: "CARD"; amount_money: SquareMoney }[];
  state: "OPEN" | "COMPLETED" | "CANCELED";
  version: number;
  created_at: string;
  updated_at: string;
}

export interface SquarePayment {
  id: string;
  amount_money: SquareMoney;
  total_money: SquareMoney;
  refunded_money?: SquareMoney;
  status: "APPROVED" | "COMPLETED" | "FAILED" | "CANCELED";
  order_id: string;
  location_id: string;
  refund_ids?: string[];
  buyer_email_address?: string;
  source_type: "CARD";
  /** Set by the refund-failure test card (not Square's: the sandbox's own marker). */
  refunds_fail?: boolean;
  created_at: string;
  updated_at: string;
}

export interface SquareRefund {
  id: string;
  status: "PENDING" | "COMPLETED" | "REJECTED" | "FAILED";
  amount_money: SquareMoney;
  payment_id: string;
  order_id: string;
  location_id: string;
  reason?: string;
  created_at: string;
  updated_at: string;
}

export interface SquareDispute {
  id: string;
  dispute_id: string;
  amount_money: SquareMoney;
  reason: string;
  state: "EVIDENCE_REQUIRED" | "PROCESSING" | "WON" | "LOST" | "ACCEPTED";
  due_at: string;
  /** Evidence texts filed, each with its type, kept in the order they came. */
  evidence_ids: string[];
  disputed_payment: { payment_id: string };
  location_id: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface RecordedRequest {
  processor: SandboxProcessor;
  method: string;
  path: string;
  at: string;
  idempotencyKey: string | null;
  body: unknown;
}

export const sandboxId = (prefix: string): string => `${prefix}_test_${randomBytes(12).toString("hex")}`;
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const MAX_RECORDED_REQUESTS = 1000;

/** Where the sandbox keeps its objects so a restart forgets nothing; the service gives it its database. */
export interface SandboxStore {
  load(): Promise<{ kind: string; id: string; body: unknown }[]>;
  save(kind: string, id: string, body: unknown): Promise<void>;
  remove(kind: string, id: string): Promise<void>;
}

/** The misbehaviour asked for with POST /sandbox/faults: the next `remaining` refund creates. */
export interface RefundFault {
  mode: "drop_response" | "error_500" | "delay";
  remaining: number;
}

/** The same for checkout creates, plus `outage`: every call of the processor answers 503. */
export interface CheckoutFault {
  mode: RefundFault["mode"] | "outage";
  remaining: number;
}

export interface ProcessorFaults {
  checkouts: CheckoutFault | null;
  refunds: RefundFault | null;
  /** The next dispute submissions and acceptances, as refunds. */
  disputes: RefundFault | null;
}

export type Kind =
  | "session"
  | "payment_intent"
  | "charge"
  | "dispute"
  | "refund"
  | "idempotency"
  | "square_link"
  | "square_order"
  | "square_payment"
  | "square_refund"
  | "square_dispute";

/** Square's ids: upper-case letters and digits. */
export const squareId = (): string =>
  randomBytes(16)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .toUpperCase()
    .slice(0, 20)
    .padEnd(20, "Q");

/** Takes one of a fault's uses, if any are left (an outage lasts until cleared). */
function take<T extends { mode: string; remaining: number }>(
  faults: ProcessorFaults,
  key: keyof ProcessorFaults,
): T["mode"] | null {
  const fault = faults[key];
  if (!fault || fault.remaining <= 0) return null;
  if (fault.mode === "outage") return fault.mode;
  fault.remaining--;
  if (fault.remaining === 0) faults[key] = null;
  return fault.mode;
}

/**
 * Everything the sandbox knows. Objects live in memory and, when a store is given, are written
 * through to it: each change is saved before the request that made it is answered.
 */
export class SandboxState {
  readonly sessions = new Map<string, SandboxSession>();
  readonly paymentIntents = new Map<string, SandboxPaymentIntent>();
  readonly charges = new Map<string, SandboxCharge>();
  readonly disputes = new Map<string, SandboxDispute>();
  readonly refunds = new Map<string, SandboxRefund>();
  readonly idempotentResponses = new Map<string, unknown>();
  readonly squareLinks = new Map<string, SquarePaymentLink>();
  readonly squareOrders = new Map<string, SquareOrder>();
  readonly squarePayments = new Map<string, SquarePayment>();
  readonly squareRefunds = new Map<string, SquareRefund>();
  readonly squareDisputes = new Map<string, SquareDispute>();
  readonly requests: RecordedRequest[] = [];
  readonly faults: Record<SandboxProcessor, ProcessorFaults> = {
    stripe: { checkouts: null, refunds: null, disputes: null },
    square: { checkouts: null, refunds: null, disputes: null },
  };
  private readonly unsaved = new Map<string, { kind: Kind; id: string; body: unknown | undefined }>();

  constructor(private readonly store?: SandboxStore) {}

  private mapOf(kind: Kind): Map<string, unknown> {
    return this.mapOfKinds()[kind];
  }

  private mapOfKinds(): Record<Kind, Map<string, unknown>> {
    return {
      session: this.sessions,
      payment_intent: this.paymentIntents,
      charge: this.charges,
      dispute: this.disputes,
      refund: this.refunds,
      idempotency: this.idempotentResponses,
      square_link: this.squareLinks,
      square_order: this.squareOrders,
      square_payment: this.squarePayments,
      square_refund: this.squareRefunds,
      square_dispute: this.squareDisputes,
    };
  }

  /** Reads what an earlier run stored. */
  async load(): Promise<void> {
    if (!this.store) return;
    for (const row of await this.store.load()) this.mapOf(row.kind as Kind).set(row.id, row.body);
  }

  /** Stores a new or changed object (call again after changing one in place). */
  put(kind: Kind, id: string, body: unknown): void {
    this.mapOf(kind).set(id, body);
    this.unsaved.set(`${kind} ${id}`, { kind, id, body });
  }

  forget(kind: Kind, id: string): void {
    this.mapOf(kind).delete(id);
    this.unsaved.set(`${kind} ${id}`, { kind, id, body: undefined });
  }

  /** Writes every change not yet stored. */
  async flush(): Promise<void> {
    if (!this.store) {
      this.unsaved.clear();
      return;
    }
    const changes = [...this.unsaved.values()];
    this.unsaved.clear();
    for (const change of changes) {
      if (change.body === undefined) await this.store.remove(change.kind, change.id);
      else await this.store.save(change.kind, change.id, change.body);
    }
  }

  record(request: RecordedRequest): void {
    this.requests.push(request);
    if (this.requests.length > MAX_RECORDED_REQUESTS) this.requests.shift();
  }

  /** Every object the sandbox holds, of every kind. */
  *everyObject(): Generator<{ kind: Kind; id: string; body: unknown }> {
    for (const [kind, map] of Object.entries(this.mapOfKinds()) as [Kind, Map<string, unknown>][]) {
      for (const [id, body] of map) yield { kind, id, body };
    }
  }

  /** A session past its expires_at reads as expired, as Stripe's do. */
  session(id: string): SandboxSession | undefined {
    const session = this.sessions.get(id);
    if (session?.status === "open" && session.expires_at <= nowSeconds()) {
      session.status = "expired";
      this.put("session", id, session);
    }
    return session;
  }

  /** Takes one fault for a refund create at this processor, if any are left. */
  takeRefundFault(processor: SandboxProcessor): RefundFault["mode"] | null {
    return take<RefundFault>(this.faults[processor], "refunds");
  }

  /** Takes one fault for a dispute submission or acceptance at this processor, if any are left. */
  takeDisputeFault(processor: SandboxProcessor): RefundFault["mode"] | null {
    return take<RefundFault>(this.faults[processor], "disputes");
  }

  /** Takes one fault for a checkout create at this processor, if any are left. */
  takeCheckoutFault(processor: SandboxProcessor): CheckoutFault["mode"] | null {
    return take<CheckoutFault>(this.faults[processor], "checkouts");
  }

  /** An outage answers every call of the processor with 503 until the faults are cleared. */
  inOutage(processor: SandboxProcessor): boolean {
    return this.faults[processor].checkouts?.mode === "outage";
  }
}
