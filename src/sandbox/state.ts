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
  currency: string;
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

/** Everything the sandbox knows lives here, in memory: a restart forgets it. */
export class SandboxState {
  readonly sessions = new Map<string, SandboxSession>();
  readonly paymentIntents = new Map<string, SandboxPaymentIntent>();
  readonly charges = new Map<string, SandboxCharge>();
  readonly disputes = new Map<string, SandboxDispute>();
  readonly refunds = new Map<string, SandboxRefund>();
  readonly idempotentResponses = new Map<string, unknown>();
  readonly requests: RecordedRequest[] = [];

  record(request: RecordedRequest): void {
    this.requests.push(request);
    if (this.requests.length > MAX_RECORDED_REQUESTS) this.requests.shift();
  }

  /** A session past its expires_at reads as expired, as Stripe's do. */
  session(id: string): SandboxSession | undefined {
    const session = this.sessions.get(id);
    if (session?.status === "open" && session.expires_at <= nowSeconds()) session.status = "expired";
    return session;
  }
}
