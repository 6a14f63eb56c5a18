// Erasing a customer (GDPR article 17 and its kin): the payments keep their bookkeeping and lose
// the person, everywhere the service keeps or shows them (docs/security.md, "Erasure").

import { ERASED_EVENT_FIELDS } from "../../payments/core/events.ts";
import { forgetCreateRequests } from "../../payments/core/idempotency-store.ts";
import type { RecordsElsewhere } from "../../payments/core/records-elsewhere.ts";
import { SETTLED_STATUSES } from "../../payments/core/status.ts";
import { eraseAbandonedRequests } from "../../payments/create/abandoned-store.ts";
import { eraseReceiptRecipients } from "../../payments/receipts/store.ts";
import { insertAuditEntry } from "../../platform/audit/store.ts";
import type { Database, Queryable } from "../../platform/db/database.ts";
import { notFound } from "../../platform/errors/domain-error.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { eraseEventFields } from "../../webhooks/sql/outbox.ts";
import { type ErasedPayment, erasePaymentsOf, eraseSettledPaymentsBefore, groupExists } from "./store.ts";

export interface ErasureRequest {
  email: string;
  /** One group's payments; null: every group's (operators). */
  groupId: string | null;
  actor: string;
  address: string | null;
}

const RETENTION_BATCH = 500;

export class CustomerErasure {
  constructor(
    private readonly db: Database,
    /** A keyed hash of an address: the audit log says whose erasure it was without keeping it. */
    private readonly digest: (email: string) => string,
    private readonly elsewhere: RecordsElsewhere | undefined,
    private readonly log: Logger,
  ) {}

  /** Erases the customer's payments and audits the request once, in one transaction; N may be 0. */
  async erase(request: ErasureRequest): Promise<{ payments: number }> {
    const { email } = request;
    if (request.groupId !== null && !(await groupExists(this.db, request.groupId))) throw notFound("Group");
    const erased = await this.db.transaction(async (tx) => {
      const payments = await erasePaymentsOf(tx, email, request.groupId);
      await eraseTraces(tx, payments, [email], request.groupId === null ? null : [request.groupId]);
      await insertAuditEntry(tx, {
        groupId: request.groupId,
        actor: request.actor,
        action: "customer.erased",
        target: null,
        detail: {
          payments: payments.length,
          emailHash: this.digest(email.toLowerCase()),
          ...(request.groupId === null && {
            groups: new Set(payments.map((payment) => payment.group_id)).size,
          }),
        },
        address: request.address,
      });
      return payments;
    });
    // Whether or not a payment had it: the sandbox may hold it from a create that left none.
    await this.forgetElsewhere([email.toLowerCase()]);
    return { payments: erased.length };
  }

  /**
   * PII_RETENTION_DAYS: erases, batch by batch, every payment settled more than `retentionDays`
   * ago; a run that erased any is audited once on the operators' log.
   */
  async eraseSettledBefore(retentionDays: number, now: Date): Promise<number> {
    const before = new Date(now.getTime() - retentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const erased = await this.db.transaction(async (tx) => {
        const payments = await eraseSettledPaymentsBefore(tx, before, SETTLED_STATUSES, RETENTION_BATCH);
        await eraseTraces(tx, payments, [], []);
        return payments;
      });
      await this.forgetElsewhere([...new Set(erased.map((payment) => payment.email))]);
      total += erased.length;
      if (erased.length < RETENTION_BATCH) break;
    }
    if (total > 0) {
      await insertAuditEntry(this.db, {
        groupId: null,
        actor: "retention",
        action: "retention.erased",
        target: null,
        detail: { payments: total, retentionDays },
        address: null,
      });
    }
    return total;
  }

  private async forgetElsewhere(emails: readonly string[]): Promise<void> {
    if (!this.elsewhere || emails.length === 0) return;
    // After the commit: the payments are erased whatever the sandbox says; it is told again by none.
    await this.elsewhere
      .forgetCustomers(emails)
      .catch((error: Error) =>
        this.log.warn({ reason: error.message }, "the sandbox could not forget a customer"),
      );
  }
}

/**
 * Every other place the erased payments' customer was kept: event bodies, receipts, requests;
 * and the create attempts for `emails` in `groupIds` (null: any) that left no payment at all.
 */
async function eraseTraces(
  q: Queryable,
  payments: readonly ErasedPayment[],
  emails: readonly string[],
  groupIds: readonly string[] | null,
): Promise<void> {
  const ids = payments.map((payment) => payment.id);
  await eraseAbandonedRequests(q, ids, emails, groupIds);
  if (payments.length === 0) return;
  await eraseEventFields(q, ids, ERASED_EVENT_FIELDS);
  await eraseReceiptRecipients(q, ids);
  await forgetCreateRequests(q, [...new Set(payments.map((payment) => payment.group_id))], ids);
}
