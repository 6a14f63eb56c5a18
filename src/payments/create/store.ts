// The statements of Create Payment: choosing the SafeSite and writing the payment once.
import type { Queryable } from "../../platform/db/database.ts";
import { prepared } from "../../platform/db/prepared.ts";
import type { Currency } from "../../platform/format/money.ts";
import type { Metadata } from "../core/metadata.ts";

export interface SafeSiteChoice {
  id: string;
  url: string;
}

/** What a create fixes before it asks the processor, so a retry can carry out the same. */
export interface CreatePlan {
  transactionId: string;
  linkToken: string;
  expiresAt: Date;
  /** Null when the group had no active SafeSite. */
  safeSite: SafeSiteChoice | null;
}

export interface NewPayment {
  plan: CreatePlan & { safeSite: SafeSiteChoice };
  groupId: string;
  processor: string;
  amount: number;
  currency: Currency;
  customerEmail: string;
  customerName: string | null;
  description: string | null;
  metadata: Metadata | null;
  successUrl: string;
  cancelUrl: string;
  webhookUrl: string | null;
  /** The host of a webhookUrl given but dropped as unreachable. */
  droppedWebhookHost: string | null;
  redirectFallback: boolean;
  /** The processors tried before the one that issued the link, and why each was passed over. */
  failovers: readonly PassedOver[];
  paymentLinkId: string | null;
}

/** A processor a create passed over: its answer was unknown, or its breaker was open. */
export interface PassedOver {
  processor: string;
  reason: "timeout" | "connection" | "server_error" | "rate_limited" | "breaker_open";
}

/** NOTIFY channel (migration 012's trigger): the group id whose SafeSites changed. */
export const SAFE_SITES_CHANNEL = "safe_sites_changed";

/** The group's active SafeSites in creation order: a create takes them in turn. */
export function listActiveSafeSites(q: Queryable, groupId: string): Promise<SafeSiteChoice[]> {
  return q.query<SafeSiteChoice>(
    "SELECT id, url FROM safe_sites WHERE group_id = $1 AND is_active ORDER BY position",
    [groupId],
  );
}

// Every create runs it: prepared.
const INSERT_PAYMENT = prepared(
  `WITH payment AS (
       INSERT INTO payments (id, group_id, status, amount, currency, customer_email, customer_name, description,
         metadata, success_url, cancel_url, webhook_url, safe_site_id, safe_site_url, link_token, expires_at,
         processor_checkout_id, processor_checkout_url, processor, dropped_webhook_host, processor_failovers,
         payment_link_id, completed_at, redirect_fallback)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $21, $22,
         $23, CASE WHEN $3 = 'failed' THEN now() END, $24
       -- Through a payment link only while it is active, read under a share lock: a deactivation
       -- that committed first refuses this payment, and one that comes after waits for it.
       WHERE $23::uuid IS NULL OR EXISTS (SELECT 1 FROM payment_links l WHERE l.id = $23 AND l.active FOR SHARE)
       ON CONFLICT (id) DO NOTHING
       RETURNING id, status
     )
     INSERT INTO payment_status_changes (payment_id, from_status, to_status, reason)
     SELECT id, NULL, status, $20 FROM payment
     RETURNING payment_id`,
);

/**
 * Writes a payment once, in its first status: `processing` with the processor's checkout, or
 * `failed` when the processor refused it; with its first status-history row. A second write of
 * the same transaction (a retry that took over a crashed request) changes nothing. False when a
 * payment through a link was refused because the link is no longer active.
 */
export async function insertPayment(
  q: Queryable,
  payment: NewPayment,
  outcome:
    | { status: "processing"; checkoutId: string; checkoutUrl: string }
    | { status: "failed"; reason: string },
): Promise<boolean> {
  const processing = outcome.status === "processing";
  const written = await q.query(INSERT_PAYMENT, [
    payment.plan.transactionId,
    payment.groupId,
    outcome.status,
    payment.amount,
    payment.currency,
    payment.customerEmail,
    payment.customerName,
    payment.description,
    payment.metadata && JSON.stringify(payment.metadata),
    payment.successUrl,
    payment.cancelUrl,
    payment.webhookUrl,
    payment.plan.safeSite.id,
    payment.plan.safeSite.url,
    payment.plan.linkToken,
    payment.plan.expiresAt,
    processing ? outcome.checkoutId : null,
    processing ? outcome.checkoutUrl : null,
    payment.processor,
    processing ? "created" : outcome.reason,
    payment.droppedWebhookHost,
    payment.failovers.length > 0 ? JSON.stringify(payment.failovers) : null,
    payment.paymentLinkId,
    payment.redirectFallback,
  ]);
  if (written.length > 0 || payment.paymentLinkId === null) return true;
  // Nothing written: the same payment was written before (a takeover), or its link was deactivated.
  const [existing] = await q.query("SELECT 1 FROM payments WHERE id = $1", [payment.plan.transactionId]);
  return existing !== undefined;
}
