import { randomUUID } from "node:crypto";
import type { Config } from "../../config/config.ts";
import { type AuditEntry, insertAuditEntry } from "../../platform/audit/store.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db/database.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import type { Currency } from "../../platform/format/money.ts";
import { reachableUrl } from "../../platform/net/unreachable-host.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { CheckoutRequest } from "../../processor/port.ts";
import { type IdempotentAnswer, runIdempotently } from "../core/idempotency.ts";
import { descriptionOf, storedMetadata } from "../core/metadata.ts";
import { CANCELLABLE } from "../core/status.ts";
import type { PaymentWriter } from "../core/writer.ts";
import type { PaymentQueries } from "../queries/service.ts";
import type { ProcessorRouting } from "../routing/service.ts";
import type { CreatePaymentInput, CreatePaymentResult } from "../schemas.ts";
import type { Failover } from "./failover.ts";
import { newLinkToken } from "./link-token.ts";
import type { ActiveSafeSites } from "./safe-sites.ts";
import { type CreatePlan, insertPayment, type NewPayment } from "./store.ts";

export type CreateConfig = Pick<
  Config,
  "checkoutTtlSeconds" | "allowedPrivateHosts" | "idempotencyLeaseSeconds"
>;

const hostOf = (url: string): string => {
  try {
    return new URL(url).host || "(no host)";
  } catch {
    return "(not a valid URL)";
  }
};

/** The first `{transactionId}` only, as the create's rules say. */
export const substituteTransactionId = (url: string, transactionId: string): string =>
  url.replace("{transactionId}", () => transactionId);

const revivePlan = (stored: unknown): CreatePlan => {
  const plan = stored as Omit<CreatePlan, "expiresAt"> & { expiresAt: string };
  return { ...plan, expiresAt: new Date(plan.expiresAt) };
};

/** A payment made through a payment link rather than the API. */
export interface PaymentOrigin {
  paymentLinkId: string;
  /** The link names no successUrl: after paying, the customer sees the service's /done page. */
  toDonePage: boolean;
}

/** The merchant's side of a payment's life: creating it and cancelling it (docs/api.md, "Endpoints"). */
/** A payment through a link that was deactivated before the payment could be written: none is. */
export class LinkDeactivatedError extends Error {
  override readonly name = "LinkDeactivatedError";
}

export class PaymentCreation {
  // Per-group turn counter; each instance rotates on its own, which spreads load just as well.
  private readonly rotation = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly routing: ProcessorRouting,
    private readonly failover: Failover,
    private readonly writer: PaymentWriter,
    private readonly queries: PaymentQueries,
    private readonly safeSites: ActiveSafeSites,
    private readonly config: CreateConfig,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * The payment is written once, after a processor of the group's route answered,
   * already `processing` (or `failed` on a definite refusal); when none answered, nothing is
   * written (docs/api.md, failover). No record is ever left `pending`. With an Idempotency-Key the same request gets
   * the same answer for 24 hours, and a request that died half-way is completed by its retry.
   */
  async create(
    groupId: string,
    input: CreatePaymentInput & { customerEmail: string },
    idempotencyKey?: string,
    origin?: PaymentOrigin,
  ): Promise<IdempotentAnswer<CreatePaymentResult>> {
    const customerEmail = input.customerEmail;
    const safeSite = await this.safeSites.choose(groupId, this.nextTurn(groupId));
    const fresh: CreatePlan = {
      transactionId: randomUUID(),
      linkToken: newLinkToken(),
      expiresAt: new Date(this.clock.now().getTime() + this.config.checkoutTtlSeconds * 1000),
      safeSite,
    };
    const carryOut = (plan: CreatePlan) => this.carryOut(groupId, { ...input, customerEmail }, plan, origin);
    if (!idempotencyKey) return { result: await carryOut(fresh), replayed: false };
    return runIdempotently(
      this.db,
      {
        groupId,
        scope: "create",
        key: idempotencyKey,
        request: origin ? { ...input, origin } : input,
        leaseSeconds: this.config.idempotencyLeaseSeconds,
        fresh,
        revive: revivePlan,
      },
      carryOut,
    );
  }

  private async carryOut(
    groupId: string,
    input: CreatePaymentInput & { customerEmail: string },
    plan: CreatePlan,
    origin: PaymentOrigin | undefined,
  ): Promise<CreatePaymentResult> {
    const { safeSite } = plan;
    if (!safeSite) {
      throw new DomainError(
        "NO_ACTIVE_SAFESITE",
        "This group has no active SafeSite to host the payment link",
      );
    }
    const id = plan.transactionId;
    const currency = input.currency.toLowerCase() as Currency;
    const metadata = storedMetadata(input.metadata);
    // An unreachable webhookUrl is not an error: the payment simply has none (docs/api.md, "Webhooks").
    const webhookUrl = input.webhookUrl
      ? reachableUrl(input.webhookUrl, this.config.allowedPrivateHosts)
      : null;
    const droppedWebhookHost = input.webhookUrl && !webhookUrl ? hostOf(input.webhookUrl) : null;
    if (droppedWebhookHost) this.logDroppedWebhookUrl(id, droppedWebhookHost);
    // The customer's way back is judged on return by the same rule: said now, and kept on the payment.
    const redirectFallback =
      !origin?.toDonePage &&
      [input.successUrl, input.cancelUrl].some(
        (url) => !reachableUrl(substituteTransactionId(url, id), this.config.allowedPrivateHosts),
      );
    if (redirectFallback) this.logRedirectFallback(id);
    const { groupName, processors } = await this.routing.candidates(groupId, currency);
    if (processors.length === 0) {
      throw new DomainError(
        "NO_ELIGIBLE_PROCESSOR",
        `No processor of this group's route is enabled and takes ${currency.toUpperCase()} payments`,
      );
    }
    const description = descriptionOf(input.description, metadata);
    const request: CheckoutRequest = {
      transactionId: id,
      amount: input.amount,
      currency,
      customerEmail: input.customerEmail,
      lineItemName: description ?? `Payment to ${groupName}`,
      returnUrl: `${safeSite.url}/return/${plan.linkToken}`,
      expiresAt: plan.expiresAt,
      // The same for a retry of the same plan, so the processor answers with the same checkout.
      idempotencyKey: `checkout-${id}`,
    };
    const tried = await this.failover.open(groupId, processors, request);
    const payment: NewPayment = {
      plan: { ...plan, safeSite },
      groupId,
      processor: tried.processor.name,
      amount: input.amount,
      currency,
      customerEmail: input.customerEmail,
      customerName: input.customerName ?? null,
      description,
      metadata,
      successUrl: origin?.toDonePage
        ? `${safeSite.url}/done/${plan.linkToken}`
        : substituteTransactionId(input.successUrl, id),
      cancelUrl: substituteTransactionId(input.cancelUrl, id),
      webhookUrl: webhookUrl?.href ?? null,
      droppedWebhookHost,
      redirectFallback,
      failovers: tried.passedOver,
      paymentLinkId: origin?.paymentLinkId ?? null,
    };
    if (tried.outcome === "refused") {
      // Kept for the record; the merchant hears of it in the response, so no webhook is sent.
      await insertPayment(this.db, payment, { status: "failed", reason: "processor_error" });
      throw new DomainError("PROCESSOR_ERROR", "The payment processor could not create the checkout session");
    }
    const { checkout } = tried;
    const written = await insertPayment(this.db, payment, {
      status: "processing",
      checkoutId: checkout.id,
      checkoutUrl: checkout.url,
    });
    if (!written) {
      // The link was deactivated while the processor opened this checkout: nobody is sent to it,
      // and it is closed at once (left open, it lapses at the payment's expiry all the same).
      void callProcessor((signal) => tried.processor.expireCheckout(checkout.id, signal), {
        deadlineMs: LOOKUP_DEADLINE_MS,
      });
      throw new LinkDeactivatedError("the payment link was deactivated while its payment was being created");
    }
    return {
      transactionId: id,
      paymentUrl: `${safeSite.url}/pay/${plan.linkToken}`,
      sessionId: checkout.id,
      expiresAt: plan.expiresAt.toISOString(),
    };
  }

  /**
   * Only pending or processing payments; the hosted link stays open (docs/api.md, "Payment statuses"). The
   * cancel's audit entry is written with the change.
   */
  async cancel(groupId: string, id: string, audit: AuditEntry): Promise<void> {
    const cancelled = await this.writer.inTransaction(async (tx, move) => {
      const moved = await move({
        paymentId: id,
        groupId,
        to: "cancelled",
        from: CANCELLABLE,
        reason: "merchant_cancel",
      });
      if (moved) await insertAuditEntry(tx, audit);
      return moved;
    });
    if (cancelled) return;
    await this.queries.get(groupId, id); // not the caller's payment: 404
    throw new DomainError(
      "ALREADY_COMPLETED",
      "Only pending or processing payments can be cancelled; read the payment for its current status",
    );
  }

  private logRedirectFallback(transactionId: string): void {
    this.log.warn(
      { transactionId },
      "successUrl or cancelUrl refused: its host is loopback, private or reserved, or it is not a valid http(s) " +
        "URL, so the customer will be sent to FALLBACK_URL (or the payment's own page) instead. For local " +
        "development, list the host in ALLOWED_PRIVATE_HOSTS.",
    );
  }

  private logDroppedWebhookUrl(transactionId: string, host: string): void {
    // Warn: the merchant expects webhooks and will get none; the events API still lists every event.
    this.log.warn(
      { transactionId, webhookHost: host },
      "webhookUrl dropped: its host is loopback, private or reserved, or it is not a valid http(s) URL, so no " +
        "webhook will be sent (the payment is created as usual). For local development, list the host in " +
        "ALLOWED_PRIVATE_HOSTS.",
    );
  }

  private nextTurn(groupId: string): number {
    const turn = this.rotation.get(groupId) ?? 0;
    this.rotation.set(groupId, (turn + 1) % 1_000_000);
    return turn;
  }
}
