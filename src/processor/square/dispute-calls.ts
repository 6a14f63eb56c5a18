// Square's dispute calls through its SDK, as the port's neutral ones.
import type { Square, SquareClient } from "square";
import {
  DISPUTE_EVIDENCE_FIELDS,
  moneyCallError,
  type ProcessorAdapter,
  type ProcessorDispute,
} from "../port.ts";
import { ask, isMissing, outcomeOf, requestOptions } from "./calls.ts";
import { evidenceTextKey, SQUARE_EVIDENCE_TYPES, toProcessorDispute } from "./disputes.ts";
import { currencyOf, minorUnits } from "./events.ts";

export function squareDisputeCalls(
  client: SquareClient,
): Pick<ProcessorAdapter, "lookUpDispute" | "sendDisputeEvidence" | "acceptDispute"> {
  return {
    lookUpDispute: (disputeRef, abortSignal) =>
      ask("dispute retrieve", async () => {
        try {
          const { dispute } = await client.disputes.get(
            { disputeId: disputeRef },
            requestOptions(abortSignal),
          );
          return dispute ? fromSdkDispute(dispute) : null;
        } catch (error) {
          if (isMissing(error)) return null;
          throw error;
        }
      }),
    async sendDisputeEvidence(request, abortSignal): Promise<ProcessorDispute> {
      try {
        // One evidence text per field, each under its own key: a repeat files none twice.
        for (const field of DISPUTE_EVIDENCE_FIELDS) {
          const text = request.evidence[field];
          if (text === undefined) continue;
          await client.disputes.createEvidenceText(
            {
              disputeId: request.disputeRef,
              idempotencyKey: evidenceTextKey(request.idempotencyKey, field),
              evidenceType: SQUARE_EVIDENCE_TYPES[field] as Square.DisputeEvidenceType,
              evidenceText: text,
            },
            requestOptions(abortSignal),
          );
        }
        const { dispute } = request.submit
          ? await client.disputes.submitEvidence(
              { disputeId: request.disputeRef },
              requestOptions(abortSignal),
            )
          : await client.disputes.get({ disputeId: request.disputeRef }, requestOptions(abortSignal));
        if (!dispute) throw new Error("Square answered without the dispute");
        return fromSdkDispute(dispute);
      } catch (error) {
        throw moneyCallError("dispute evidence", error, outcomeOf(error));
      }
    },
    async acceptDispute(disputeRef, abortSignal): Promise<ProcessorDispute> {
      try {
        const { dispute } = await client.disputes.accept(
          { disputeId: disputeRef },
          requestOptions(abortSignal),
        );
        if (!dispute) throw new Error("Square answered without the dispute");
        return fromSdkDispute(dispute);
      } catch (error) {
        throw moneyCallError("dispute acceptance", error, outcomeOf(error));
      }
    },
  };
}

export const fromSdkDispute = (dispute: Square.Dispute): ProcessorDispute =>
  toProcessorDispute({
    id: dispute.id ?? dispute.disputeId ?? "",
    state: dispute.state ?? null,
    reason: dispute.reason ?? null,
    amount: minorUnits(dispute.amountMoney),
    currency: currencyOf(dispute.amountMoney),
    dueAt: dispute.dueAt ?? null,
  });
