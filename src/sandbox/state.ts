import { randomBytes } from "node:crypto";

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
  status: "needs_response" | "won" | "lost";
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

export interface RecordedRequest {
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

type Kind = "session" | "payment_intent" | "charge" | "dispute" | "refund" | "idempotency";

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
  readonly requests: RecordedRequest[] = [];
  refundFault: RefundFault | null = null;
  private readonly unsaved = new Map<string, { kind: Kind; id: string; body: unknown | undefined }>();

  constructor(private readonly store?: SandboxStore) {}

  private mapOf(kind: Kind): Map<string, unknown> {
    const maps: Record<Kind, Map<string, unknown>> = {
      session: this.sessions,
      payment_intent: this.paymentIntents,
      charge: this.charges,
      dispute: this.disputes,
      refund: this.refunds,
      idempotency: this.idempotentResponses,
    };
    return maps[kind];
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

  /** A session past its expires_at reads as expired, as Stripe's do. */
  session(id: string): SandboxSession | undefined {
    const session = this.sessions.get(id);
    if (session?.status === "open" && session.expires_at <= nowSeconds()) {
      session.status = "expired";
      this.put("session", id, session);
    }
    return session;
  }

  /** Takes one fault for a refund create, if any are left. */
  takeRefundFault(): RefundFault["mode"] | null {
    const fault = this.refundFault;
    if (!fault || fault.remaining <= 0) return null;
    fault.remaining--;
    if (fault.remaining === 0) this.refundFault = null;
    return fault.mode;
  }
}
