// Stripe's dispute calls through its SDK, as the port's neutral ones.
import type Stripe from "stripe";
import { moneyCallError, type ProcessorAdapter, type ProcessorDispute } from "../port.ts";
import { ask, isMissing, outcomeOf, withoutCallSiteStack } from "./calls.ts";
import { stripeEvidenceOf, toProcessorDispute } from "./disputes.ts";

export function stripeDisputeCalls(
  stripe: Stripe,
): Pick<ProcessorAdapter, "lookUpDispute" | "sendDisputeEvidence" | "acceptDispute"> {
  return {
    lookUpDispute: (disputeRef, signal) =>
      ask(
        "dispute retrieve",
        async () => {
          try {
            return toProcessorDispute(await stripe.disputes.retrieve(disputeRef));
          } catch (error) {
            if (isMissing(error)) return null;
            throw error;
          }
        },
        signal,
      ),
    async sendDisputeEvidence(request, signal): Promise<ProcessorDispute> {
      const evidence = stripeEvidenceOf(request.evidence);
      try {
        return toProcessorDispute(
          await withoutCallSiteStack(
            () =>
              stripe.disputes.update(
                request.disputeRef,
                { evidence, submit: request.submit },
                { idempotencyKey: request.idempotencyKey },
              ),
            signal,
          ),
        );
      } catch (error) {
        throw moneyCallError("dispute evidence", error, outcomeOf(error));
      }
    },
    async acceptDispute(disputeRef, signal): Promise<ProcessorDispute> {
      try {
        const dispute = await withoutCallSiteStack(() => stripe.disputes.close(disputeRef), signal);
        // Stripe says a conceded dispute is lost; the merchant gave it up.
        return { ...toProcessorDispute(dispute), status: "accepted" };
      } catch (error) {
        throw moneyCallError("dispute acceptance", error, outcomeOf(error));
      }
    },
  };
}
