import { createHash, randomUUID } from "node:crypto";
import { type AuditEntry, insertAuditEntry } from "../../platform/audit/store.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Database, Queryable } from "../../platform/db/database.ts";
import { DomainError, notFound } from "../../platform/errors/domain-error.ts";
import type { Logger } from "../../platform/telemetry/logger.ts";
import { type CallOutcome, callProcessor, LOOKUP_DEADLINE_MS } from "../../processor/call.ts";
import type { DisputeEvidence, DisputeStatus, ProcessorDispute } from "../../processor/port.ts";
import type { ProcessorRegistry } from "../../processor/registry.ts";
import type { PaymentRow } from "../core/store.ts";
import type { PaymentWriter } from "../core/writer.ts";
import type { PaymentQueries } from "../queries/service.ts";
import { type DisputeResource, toDisputeResource } from "./resource.ts";
import { type PendingDisputeAction, settledStatus } from "./status.ts";
import {
  clearDisputePending,
  type DisputeRow,
  findDispute,
  insertDispute,
  listDisputes,
  listDisputesOfPayment,
  listPendingDisputes,
  lockDisputeOfProcessor,
  markDisputePending,
  updateDisputeFromProcessor,
} from "./store.ts";

export interface DisputesConfig {
  /** How long a merchant waits for the processor before hearing it did not answer. */
  refundDeadlineMs: number;
}

/** A call whose outcome is unknown is read back at the processor once it is this old. */
const SETTLE_AFTER_MS = 30_000;
const SETTLE_BATCH = 50;

/** How the processor shows each call of ours carried out (a processor may report a concession as lost). */
const DONE_BY: Record<PendingDisputeAction, readonly ProcessorDispute["status"][]> = {
  submit: ["under_review"],
  accept: ["accepted", "lost"],
};

export interface EvidenceInput extends DisputeEvidence {
  submit?: boolean;
}

const closed = () =>
  new DomainError(
    "DISPUTE_CLOSED",
    "The dispute no longer takes evidence or acceptance: it is not waiting for a response, or its deadline has passed",
  );

const unanswered = () =>
  new DomainError(
    "SERVICE_UNAVAILABLE",
    "The processor did not answer, so whether it took this is not known yet; the dispute shows the outcome once " +
      "the processor has been asked again",
  );

/**
 * Disputes (docs/api.md, "Disputes"): recorded from the processor's word, answered through it.
 * Evidence and acceptance are marked pending before the processor is asked; an unknown outcome
 * stays pending until a later read of the dispute at the processor settles it, so nothing is
 * answered as done that the processor may not have done.
 */
export class Disputes {
  constructor(
    private readonly db: Database,
    private readonly processors: ProcessorRegistry,
    private readonly writer: PaymentWriter,
    private readonly queries: PaymentQueries,
    private readonly config: DisputesConfig,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  async list(
    groupId: string,
    filter: { status?: DisputeStatus | undefined; afterId?: string | undefined },
    limit: number,
  ): Promise<{ disputes: DisputeResource[]; hasMore: boolean; nextCursor: string | null }> {
    if (filter.afterId !== undefined && !(await findDispute(this.db, groupId, filter.afterId))) {
      throw new DomainError("INVALID_REQUEST", "after is not a cursor this API issued");
    }
    const rows = await listDisputes(this.db, groupId, filter, limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return {
      disputes: page.map(toDisputeResource),
      hasMore,
      nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null,
    };
  }

  async get(groupId: string, disputeId: string): Promise<DisputeResource> {
    return toDisputeResource(await this.row(groupId, disputeId));
  }

  async ofPayment(groupId: string, paymentId: string): Promise<DisputeResource[]> {
    return this.ofPaymentRow(await this.queries.get(groupId, paymentId));
  }

  /** The disputes of a payment already read (and so already checked to be the caller's). */
  async ofPaymentRow(payment: PaymentRow): Promise<DisputeResource[]> {
    return (await listDisputesOfPayment(this.db, payment.id)).map(toDisputeResource);
  }

  /**
   * A dispute as the processor reports it (an event, a reconciliation run), in the caller's
   * transaction: recorded the first time, moved through the transition table after.
   */
  async recordFromProcessor(tx: Queryable, payment: PaymentRow, told: ProcessorDispute): Promise<void> {
    // A dispute is for the payment's amount unless the processor says less.
    const remote = told.amount > 0 ? told : { ...told, amount: payment.amount, currency: payment.currency };
    const inserted = await insertDispute(tx, {
      id: randomUUID(),
      paymentId: payment.id,
      groupId: payment.group_id,
      processor: payment.processor,
      remote,
    });
    if (inserted) return;
    const ours = await lockDisputeOfProcessor(tx, payment.processor, remote.id);
    if (!ours || ours.payment_id !== payment.id) return;
    const { status, settlesPending } = settledStatus(
      { status: ours.status, pending: ours.pending_action },
      remote.status,
    );
    await updateDisputeFromProcessor(tx, ours.id, { from: ours.status, to: status, remote, settlesPending });
  }

  /** Files the merchant's evidence at the processor; with `submit`, submits it for review. */
  async sendEvidence(
    groupId: string,
    disputeId: string,
    input: EvidenceInput,
    audit?: AuditEntry,
  ): Promise<DisputeResource> {
    const { submit = false, ...evidence } = input;
    if (!submit && Object.keys(evidence).length === 0) {
      throw new DomainError("INVALID_REQUEST", "Give at least one evidence field, or submit: true");
    }
    const dispute = await this.openDispute(groupId, disputeId);
    const adapter = this.processors.of(dispute.processor);
    const request = {
      disputeRef: dispute.processor_dispute_id,
      evidence,
      submit,
      idempotencyKey: `dispute-evidence-${dispute.id}-${digestOf(input)}`,
    };
    if (!submit) {
      // A draft changes nothing of ours: asked again, the processor keeps the last text.
      const answer = await callProcessor((signal) => adapter.sendDisputeEvidence(request, signal), {
        deadlineMs: this.config.refundDeadlineMs,
      });
      return this.settle(dispute, answer, audit);
    }
    return this.whilePending(dispute, "submit", audit, (signal) =>
      adapter.sendDisputeEvidence(request, signal),
    );
  }

  /** Concedes the dispute at the processor: the payment is `dispute_lost`. */
  async accept(groupId: string, disputeId: string, audit?: AuditEntry): Promise<DisputeResource> {
    const dispute = await this.openDispute(groupId, disputeId);
    const adapter = this.processors.of(dispute.processor);
    return this.whilePending(dispute, "accept", audit, (signal) =>
      adapter.acceptDispute(dispute.processor_dispute_id, signal),
    );
  }

  /** Reads back, at the processor, disputes whose last call was not answered. */
  async settleDue(): Promise<number> {
    const due = await listPendingDisputes(
      this.db,
      new Date(this.clock.now().getTime() - SETTLE_AFTER_MS),
      SETTLE_BATCH,
    );
    let settled = 0;
    for (const dispute of due) {
      if (await this.readBack(dispute)) settled++;
    }
    return settled;
  }

  private async row(groupId: string, disputeId: string): Promise<DisputeRow> {
    const row = await findDispute(this.db, groupId, disputeId);
    if (!row) throw notFound("Dispute");
    return row;
  }

  /**
   * The dispute, still taking evidence and acceptance. One whose last call went unanswered is
   * first read back at the processor: that call may have settled it.
   */
  private async openDispute(groupId: string, disputeId: string): Promise<DisputeRow> {
    let dispute = await this.row(groupId, disputeId);
    if (dispute.pending_action) {
      await this.readBack(dispute);
      dispute = await this.row(groupId, disputeId);
    }
    const due = dispute.evidence_due_by;
    if (dispute.status !== "needs_response" || (due && due <= this.clock.now())) throw closed();
    if (dispute.pending_action) throw unanswered();
    return dispute;
  }

  /** Marks the call pending, asks, and settles what the processor answered. */
  private async whilePending(
    dispute: DisputeRow,
    action: PendingDisputeAction,
    audit: AuditEntry | undefined,
    call: (signal: AbortSignal) => Promise<ProcessorDispute>,
  ): Promise<DisputeResource> {
    // Marked before asking: of two requests at once, only one asks the processor.
    const marked = await markDisputePending(this.db, dispute.id, action, this.clock.now());
    if (!marked) throw closed();
    const answer = await callProcessor(call, { deadlineMs: this.config.refundDeadlineMs });
    if (answer.kind === "refused") {
      // A refusal may answer a repeat of a call that was carried out (a retry after a lost
      // answer): the processor's dispute says which.
      const now = await this.lookUp(dispute);
      if (now && DONE_BY[action].includes(now.status))
        return this.settle(marked, { kind: "ok", value: now }, audit);
      await clearDisputePending(this.db, dispute.id, action);
    }
    return this.settle(marked, answer, audit);
  }

  /** What the processor answered, applied; its refusal or its silence, said. */
  private async settle(
    dispute: DisputeRow,
    answer: CallOutcome<ProcessorDispute>,
    audit: AuditEntry | undefined,
  ): Promise<DisputeResource> {
    if (answer.kind === "refused") {
      throw new DomainError("PROCESSOR_ERROR", `The processor refused: ${answer.error.message}`);
    }
    if (answer.kind === "unknown") {
      this.log.warn(
        { disputeId: dispute.id, reason: answer.reason },
        "processor did not answer a dispute call; it is read back later",
      );
      throw unanswered();
    }
    await this.apply(dispute, answer.value, audit);
    return this.get(dispute.group_id, dispute.id);
  }

  /** The processor's dispute, recorded; a concession moves the payment to `dispute_lost`. */
  private async apply(dispute: DisputeRow, remote: ProcessorDispute, audit?: AuditEntry): Promise<void> {
    await this.writer.inTransaction(async (tx, move) => {
      const ours = await lockDisputeOfProcessor(tx, dispute.processor, dispute.processor_dispute_id);
      if (!ours) return;
      const { status, settlesPending } = settledStatus(
        { status: ours.status, pending: ours.pending_action },
        remote.status,
      );
      await updateDisputeFromProcessor(tx, ours.id, {
        from: ours.status,
        to: status,
        remote,
        settlesPending,
      });
      if (status === "accepted" && ours.status !== "accepted") {
        await this.writer.applyFact(
          tx,
          move,
          ours.payment_id,
          { kind: "dispute_closed", outcome: "lost", dispute: remote },
          null,
          `dispute_accepted:${ours.id}`,
        );
      }
      if (audit) await insertAuditEntry(tx, audit);
    });
  }

  /** The dispute as the processor has it now; null when it did not answer or has no such dispute. */
  private async lookUp(dispute: DisputeRow): Promise<ProcessorDispute | null> {
    const adapter = this.processors.of(dispute.processor);
    const answer = await callProcessor(
      (signal) => adapter.lookUpDispute(dispute.processor_dispute_id, signal),
      {
        deadlineMs: LOOKUP_DEADLINE_MS,
      },
    );
    return answer.kind === "ok" ? answer.value : null;
  }

  /**
   * A dispute read at the processor; true when that settled a call of ours. A call long past its
   * deadline that the processor shows no sign of (still waiting for a response) did not happen.
   */
  private async readBack(dispute: DisputeRow): Promise<boolean> {
    const adapter = this.processors.of(dispute.processor);
    const answer = await callProcessor(
      (signal) => adapter.lookUpDispute(dispute.processor_dispute_id, signal),
      {
        deadlineMs: LOOKUP_DEADLINE_MS,
      },
    );
    if (answer.kind !== "ok" || !answer.value) return false;
    const before = dispute.pending_action;
    await this.apply(dispute, answer.value);
    const since = dispute.pending_since?.getTime() ?? Number.POSITIVE_INFINITY;
    if (
      before &&
      answer.value.status === "needs_response" &&
      since < this.clock.now().getTime() - SETTLE_AFTER_MS
    ) {
      await clearDisputePending(this.db, dispute.id, before);
    }
    const after = await findDispute(this.db, dispute.group_id, dispute.id);
    if (before && after && after.pending_action === null) {
      this.log.info({ disputeId: dispute.id, status: after.status }, "unanswered dispute call settled");
      return true;
    }
    return false;
  }
}

/** The same evidence asked again carries the same processor key. */
const digestOf = (input: EvidenceInput): string =>
  createHash("sha256").update(JSON.stringify(input)).digest("hex").slice(0, 32);
