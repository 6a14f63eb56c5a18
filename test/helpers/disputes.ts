// A paid payment with a dispute opened at the sandbox processor, once the service has recorded it.
import type { TestGroup, TestService } from "./service.ts";
import { waitFor } from "./wait.ts";

export interface OpenedDispute {
  transactionId: string;
  /** The dispute as the API answers it. */
  dispute: { disputeId: string; processorDisputeId: string; status: string; [field: string]: unknown };
  /** The processor's id of the dispute. */
  ref: string;
}

export async function openDispute(
  service: TestService,
  group: TestGroup,
  options: {
    payment?: Record<string, unknown>;
    dueInHours?: number;
    evidenceDueBy?: Date;
    reason?: string;
  } = {},
): Promise<OpenedDispute> {
  const created = (await service.createPayment(group, options.payment ?? {})).body.data;
  await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
  const paid = await waitFor(async () => {
    const payment = (await service.api(group, "GET", `/api/v1/payments/${created.transactionId}`)).body.data;
    return payment.status === "succeeded" ? payment : undefined;
  });
  const due =
    options.evidenceDueBy ??
    (options.dueInHours === undefined ? undefined : new Date(Date.now() + options.dueInHours * 3_600_000));
  const opened = await service.sandboxPost(
    `/sandbox/payment_intents/${paid.processorPaymentIntentId}/dispute`,
    {
      ...(options.reason && { reason: options.reason }),
      ...(due && { evidenceDueBy: due.toISOString() }),
    },
  );
  if (opened.status !== 200) throw new Error(`the sandbox opened no dispute: ${JSON.stringify(opened.body)}`);
  const [dispute] = await waitFor(async () => {
    const list = (await service.api(group, "GET", `/api/v1/payments/${paid.id}/disputes`)).body.data.disputes;
    return list.length > 0 ? list : undefined;
  });
  return { transactionId: paid.id as string, dispute, ref: opened.body.id as string };
}
