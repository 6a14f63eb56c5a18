import type { Clock } from "../../platform/clock.ts";
import type { Database } from "../../platform/db/database.ts";
import { notFound } from "../../platform/errors/domain-error.ts";
import { UUID_PATTERN } from "../../platform/format/uuid.ts";
import { LINK_OPEN_STATUSES, PAID_STATUSES } from "../core/status.ts";
import {
  findPayment,
  findPaymentByLinkToken,
  findPaymentResource,
  type PaymentResourceRow,
  type PaymentRow,
} from "../core/store.ts";
import {
  dailyPaymentTotals,
  findPaymentLinkSummary,
  listPaymentSummaries,
  listPayments,
  listStatusChanges,
  type PaymentFilter,
  type PaymentLinkSummary,
  type PaymentSummaryRow,
  processorActivity,
} from "./store.ts";

/** What the hosted link (/pay/:token) does for the customer. */
export type LinkAnswer =
  | { kind: "redirect"; url: string }
  | { kind: "not_found" }
  | { kind: "already_paid"; groupId: string }
  | { kind: "expired"; groupId: string };

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,64}$/;

/** Reading payments: the API, the dashboard and the customer's link. Nothing here writes. */
export class PaymentQueries {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The caller's payment; unknown, malformed and other groups' ids are all 404 (docs/api.md, "Conventions"). */
  async get(groupId: string, id: string): Promise<PaymentRow> {
    const payment = UUID_PATTERN.test(id) ? await findPayment(this.db, groupId, id) : undefined;
    if (!payment) throw notFound();
    return payment;
  }

  /** The same, with only the columns the API's resource shows. */
  async getResource(groupId: string, id: string): Promise<PaymentResourceRow> {
    const payment = UUID_PATTERN.test(id) ? await findPaymentResource(this.db, groupId, id) : undefined;
    if (!payment) throw notFound();
    return payment;
  }

  /** A page of the group's payments, newest first. */
  list(groupId: string, filter: PaymentFilter, limit: number): Promise<PaymentResourceRow[]> {
    return listPayments(this.db.reads, groupId, filter, limit);
  }

  /** The same, with only what the dashboard's list and its export show. */
  listSummaries(
    groupId: string,
    filter: PaymentFilter,
    limit: number,
  ): Promise<(PaymentSummaryRow & { link_name: string | null })[]> {
    return listPaymentSummaries(this.db.reads, groupId, filter, limit);
  }

  /** The payment link a payment was made through; null for one made through the API. */
  linkOf(payment: Pick<PaymentRow, "payment_link_id">): Promise<PaymentLinkSummary | null> {
    return findPaymentLinkSummary(this.db, payment.payment_link_id);
  }

  /** Whether the payment's own checkout can still be paid: its hosted link still forwards to it. */
  isStillPayable(payment: PaymentRow): boolean {
    return (
      payment.processor_checkout_url !== null &&
      LINK_OPEN_STATUSES.has(payment.status) &&
      payment.expires_at.getTime() > this.clock.now().getTime()
    );
  }

  statusHistory(payment: PaymentRow) {
    return listStatusChanges(this.db, payment.id);
  }

  /** Each processor's creates and passed-over creates since a time, across every group. */
  processorActivity(since: Date) {
    return processorActivity(this.db.reads, since);
  }

  /** The last `days` UTC days of a group's payments, by day, status and currency. */
  dailyTotals(groupId: string, since: Date) {
    return dailyPaymentTotals(this.db.reads, groupId, since);
  }

  byLinkToken(token: string): Promise<PaymentRow | undefined> {
    return TOKEN_PATTERN.test(token) ? findPaymentByLinkToken(this.db, token) : Promise.resolve(undefined);
  }

  /** The processor's checkout page of a payment just created (a payment link's form goes there). */
  async checkoutUrlOf(groupId: string, id: string): Promise<string> {
    const payment = await this.get(groupId, id);
    if (!payment.processor_checkout_url) throw notFound();
    return payment.processor_checkout_url;
  }

  /** Where the hosted payment link sends the customer. */
  async openLink(token: string): Promise<LinkAnswer> {
    const payment = await this.byLinkToken(token);
    if (!payment?.processor_checkout_url) return { kind: "not_found" };
    if (PAID_STATUSES.has(payment.status)) return { kind: "already_paid", groupId: payment.group_id };
    // A cancelled payment's link stays open until it expires.
    if (!this.isStillPayable(payment)) return { kind: "expired", groupId: payment.group_id };
    return { kind: "redirect", url: payment.processor_checkout_url };
  }
}
