import { WebhookVerificationError as StandardVerificationError, Webhook } from "standardwebhooks";
import { CheckoutError, WebhookVerificationError } from "./errors.js";
import {
  type EventStreamOptions,
  followEvents,
  readEventStream,
  type SseMessage,
  type StreamedEvent,
} from "./event-stream.js";
import type { components, paths } from "./generated/api.js";
import { send, type TransportOptions } from "./transport.js";

export type { components, EventStreamOptions, paths, SseMessage, StreamedEvent };
/** `readEventStream` is the stream's parser alone, for a connection of your own. */
export { CheckoutError, readEventStream, WebhookVerificationError };

type Schemas = components["schemas"];
export type Payment = Schemas["Payment"];
export type Refund = Schemas["Refund"];
export type Event = Schemas["Event"];
export type CreatedPayment = Schemas["CreatedPayment"];
export type WebhookPayload = Schemas["WebhookPayload"];
export type CreatePaymentInput = NonNullable<
  paths["/api/v1/payments/create"]["post"]["requestBody"]
>["content"]["application/json"];
export type RefundInput = NonNullable<
  NonNullable<paths["/api/v1/payments/{id}/refunds"]["post"]["requestBody"]>["content"]["application/json"]
>;
export type PaymentStatus = Payment["status"];
export type SandboxEvent = NonNullable<
  paths["/api/v1/sandbox/trigger"]["post"]["requestBody"]
>["content"]["application/json"]["event"];

type Ok<Op> = Op extends { responses: infer R }
  ? R extends { 200: infer A } | { 201: infer A } | { 202: infer A }
    ? A extends { content: { "application/json": { data: infer D } } }
      ? D
      : never
    : never
  : never;
type Body<Op> = Op extends { requestBody?: infer B }
  ? NonNullable<B> extends { content: { "application/json": infer J } }
    ? NonNullable<J>
    : never
  : never;
type Operations = import("./generated/api.js").operations;
/** A webhook endpoint: its URL, the events it takes, and whether it is enabled. */
export type WebhookEndpoint = Ok<Operations["getWebhookEndpoint"]>;
export type Dispute = Schemas["Dispute"];
export type DisputeStatus = Dispute["status"];
export type DisputeEvidenceInput = Body<Operations["sendDisputeEvidence"]>;
export type DisputePage = Ok<Operations["listDisputes"]>;
export type CreatedWebhookEndpoint = Ok<Operations["createWebhookEndpoint"]>;
export type WebhookEndpointInput = Body<Operations["createWebhookEndpoint"]>;
export type WebhookEndpointChange = Body<Operations["changeWebhookEndpoint"]>;

export interface PaymentPage {
  payments: Payment[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface ListPaymentsParams {
  status?: PaymentStatus;
  /** createdAt at or after (inclusive) */
  from?: string | Date;
  /** createdAt before (exclusive) */
  to?: string | Date;
  /** 1 to 100; 20 when left out */
  limit?: number;
  /** The nextCursor of the previous page */
  after?: string;
}

export interface CheckoutOptions {
  /** The service's address, e.g. http://localhost:3000 */
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  /**
   * Retries of a lost connection, 429 (waiting Retry-After), 500 and 503, for reads and for calls
   * under an Idempotency-Key (calls without one: 429 only); 2 unless given. 0 never retries.
   */
  maxRetries?: number;
  /** Per attempt; 30 s unless given. */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, a test double). */
  fetch?: typeof fetch;
}

export interface IdempotencyOptions {
  /** The same key makes the same request once; one is made up when left out. */
  idempotencyKey?: string;
}

const segment = (value: string) => encodeURIComponent(value);
const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);

/**
 * `await` it for the first page; `for await` over it for every payment of every page.
 */
export class PaymentList implements PromiseLike<PaymentPage>, AsyncIterable<Payment> {
  constructor(
    private readonly fetchPage: (after: string | undefined) => Promise<PaymentPage>,
    private readonly after?: string,
  ) {}

  // biome-ignore lint/suspicious/noThenProperty: `await list()` gives the first page while `for await` walks every page
  then<A = PaymentPage, B = never>(
    onFulfilled?: ((page: PaymentPage) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.fetchPage(this.after).then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Payment> {
    let after = this.after;
    for (;;) {
      const page = await this.fetchPage(after);
      yield* page.payments;
      if (!page.hasMore || !page.nextCursor) return;
      after = page.nextCursor;
    }
  }
}

/** A client of the checkout service's merchant API. */
export class Checkout {
  private readonly transport: TransportOptions;

  constructor(options: CheckoutOptions) {
    if (!options.baseUrl || !options.publicKey || !options.secretKey) {
      throw new TypeError("Checkout needs baseUrl, publicKey and secretKey");
    }
    this.transport = {
      baseUrl: options.baseUrl,
      publicKey: options.publicKey,
      secretKey: options.secretKey,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch,
    };
  }

  private async call<T>(
    method: string,
    path: string,
    request?: { body?: unknown; idempotencyKey?: string | undefined },
  ): Promise<T> {
    return (await send(this.transport, method, path, request)).data as T;
  }

  readonly payments = {
    create: (input: CreatePaymentInput, options: IdempotencyOptions = {}): Promise<CreatedPayment> =>
      this.call("POST", "/api/v1/payments/create", {
        body: input,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
      }),
    get: (transactionId: string): Promise<Payment> =>
      this.call("GET", `/api/v1/payments/${segment(transactionId)}`),
    cancel: (transactionId: string): Promise<unknown> =>
      this.call("DELETE", `/api/v1/payments/${segment(transactionId)}`),
    list: (params: ListPaymentsParams = {}): PaymentList => {
      const fetchPage = (after: string | undefined) => {
        const query = new URLSearchParams();
        if (params.status) query.set("status", params.status);
        if (params.from !== undefined) query.set("from", iso(params.from));
        if (params.to !== undefined) query.set("to", iso(params.to));
        if (params.limit !== undefined) query.set("limit", String(params.limit));
        if (after) query.set("after", after);
        const search = query.toString();
        return this.call<PaymentPage>("GET", `/api/v1/payments${search ? `?${search}` : ""}`);
      };
      return new PaymentList(fetchPage, params.after);
    },
  };

  readonly refunds = {
    create: (
      transactionId: string,
      input: RefundInput = {},
      options: IdempotencyOptions = {},
    ): Promise<Refund> =>
      this.call("POST", `/api/v1/payments/${segment(transactionId)}/refunds`, {
        body: input,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
      }),
    // The data of the answer, as every method resolves to: `{ refunds }`.
    list: (transactionId: string): Promise<{ refunds: Refund[] }> =>
      this.call("GET", `/api/v1/payments/${segment(transactionId)}/refunds`),
  };

  readonly events = {
    list: (transactionId: string): Promise<Event[]> =>
      this.call("GET", `/api/v1/payments/${segment(transactionId)}/events`),
    resend: (transactionId: string, eventId: string): Promise<{ deliveryId: string; state: "pending" }> =>
      this.call("POST", `/api/v1/payments/${segment(transactionId)}/events/${segment(eventId)}/resend`),
    /** Every event of the window whose deliveries all failed; with `endpointId`, what that endpoint missed. */
    recover: (window: {
      since: string | Date;
      until?: string | Date;
      endpointId?: string;
    }): Promise<{ queued: number }> =>
      this.call("POST", "/api/v1/events/recover", {
        body: {
          since: iso(window.since),
          ...(window.until !== undefined && { until: iso(window.until) }),
          ...(window.endpointId !== undefined && { endpointId: window.endpointId }),
        },
      }),
    /**
     * The group's events as they happen, for `for await`: from now, or just after `lastEventId`.
     * It reconnects by itself after a lost connection, 5xx or 429, resuming after the last event
     * it gave, until `signal` aborts or the loop stops; keys refused or an unknown `lastEventId`
     * reject with CheckoutError.
     */
    stream: (options: EventStreamOptions = {}): AsyncIterable<StreamedEvent> =>
      followEvents(this.transport, options),
  };

  /**
   * Chargebacks at any processor. Evidence and acceptance are taken while a dispute is
   * `needs_response` and before its `evidenceDueBy` (else CheckoutError DISPUTE_CLOSED); a
   * processor that did not answer rejects with SERVICE_UNAVAILABLE, and the dispute shows the
   * outcome once the service has asked the processor again.
   */
  readonly disputes = {
    /** One page: open disputes by deadline, then closed ones, newest first. */
    list: (params: { status?: DisputeStatus; limit?: number; after?: string } = {}): Promise<DisputePage> => {
      const query = new URLSearchParams();
      if (params.status) query.set("status", params.status);
      if (params.limit !== undefined) query.set("limit", String(params.limit));
      if (params.after) query.set("after", params.after);
      const search = query.toString();
      return this.call("GET", `/api/v1/disputes${search ? `?${search}` : ""}`);
    },
    get: (disputeId: string): Promise<Dispute> => this.call("GET", `/api/v1/disputes/${segment(disputeId)}`),
    /** A payment's disputes, oldest first: `{ disputes }`. */
    ofPayment: (transactionId: string): Promise<{ disputes: Dispute[] }> =>
      this.call("GET", `/api/v1/payments/${segment(transactionId)}/disputes`),
    /** Files evidence texts; with `submit: true`, submits everything filed for review. */
    evidence: (disputeId: string, input: DisputeEvidenceInput): Promise<Dispute> =>
      this.call("POST", `/api/v1/disputes/${segment(disputeId)}/evidence`, { body: input }),
    /** Concedes the dispute: the payment becomes `dispute_lost`. */
    accept: (disputeId: string): Promise<Dispute> =>
      this.call("POST", `/api/v1/disputes/${segment(disputeId)}/accept`),
  };

  /** The group's webhook endpoints: several destinations, each with its events and its own secret. */
  readonly endpoints = {
    /** A new endpoint; its `secret` is in this answer only. */
    create: (input: WebhookEndpointInput): Promise<CreatedWebhookEndpoint> =>
      this.call("POST", "/api/v1/webhook-endpoints", { body: input }),
    list: (): Promise<{ endpoints: WebhookEndpoint[] }> => this.call("GET", "/api/v1/webhook-endpoints"),
    get: (endpointId: string): Promise<WebhookEndpoint> =>
      this.call("GET", `/api/v1/webhook-endpoints/${segment(endpointId)}`),
    update: (endpointId: string, change: WebhookEndpointChange): Promise<WebhookEndpoint> =>
      this.call("PATCH", `/api/v1/webhook-endpoints/${segment(endpointId)}`, { body: change }),
    delete: (endpointId: string): Promise<{ endpointId: string; deleted: boolean }> =>
      this.call("DELETE", `/api/v1/webhook-endpoints/${segment(endpointId)}`),
    /** A new secret (shown this once); the old one signs beside it for `graceSeconds` (default a day). */
    rotateSecret: (
      endpointId: string,
      options: { graceSeconds?: number } = {},
    ): Promise<{ secret: string }> =>
      this.call("POST", `/api/v1/webhook-endpoints/${segment(endpointId)}/rotate-secret`, { body: options }),
    /** One signed `webhook.test` event to the endpoint, delivered like any other. */
    test: (endpointId: string): Promise<{ endpointId: string; event: string }> =>
      this.call("POST", `/api/v1/webhook-endpoints/${segment(endpointId)}/test`),
  };

  readonly customers = {
    /**
     * Erases a customer of your group (GDPR article 17): every payment with this e-mail address, any
     * case, loses customerEmail, customerName, description and metadata wherever the service keeps
     * them, and gains erasedAt. Resolves to how many payments were erased now (0 when none or
     * already erased). The processor's own records are its to erase.
     */
    erase: (email: string): Promise<{ erased: { payments: number } }> =>
      this.call("POST", "/api/v1/customers/erase", { body: { email } }),
  };

  /** The sandbox processor's helpers: only a service running with PROCESSOR=sandbox answers them. */
  readonly sandbox = {
    /** A new payment of your group, driven by the sandbox to the status that sends `event`. */
    trigger: (event: SandboxEvent): Promise<{ transactionId: string; event: SandboxEvent }> =>
      this.call("POST", "/api/v1/sandbox/trigger", { body: { event } }),
  };

  readonly webhooks = {
    /**
     * The webhook body, parsed, when its Standard Webhooks signature holds for `secret` (whsec_…)
     * and its timestamp is within 5 minutes; throws WebhookVerificationError otherwise.
     * Pass the raw body exactly as received: a re-serialized one does not verify.
     */
    verify: (
      rawBody: string | Uint8Array,
      headers: Headers | Record<string, string | string[] | undefined>,
      secret: string,
    ): WebhookPayload => verifyWebhook(rawBody, headers, secret),
  };
}

/** Also usable without a client: a receiver needs only the secret. */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
): WebhookPayload {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  try {
    return new Webhook(secret).verify(body, flat) as WebhookPayload;
  } catch (error) {
    const reason = error instanceof StandardVerificationError ? error.message : (error as Error).message;
    throw new WebhookVerificationError(`Webhook not verified: ${reason}`);
  }
}
