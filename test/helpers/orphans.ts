import type { TestGroup, TestService } from "./service.ts";
import { waitFor } from "./wait.ts";

/**
 * A checkout a create abandoned at Stripe (its answers were lost, so the create went to Square),
 * which the customer paid anyway before it was closed: an orphan_checkout_paid item.
 */
export async function paidOrphan(service: TestService, group: TestGroup) {
  const sandbox = service.sandbox;
  if (!sandbox) throw new Error("the sandbox runs in these tests");
  await service.admin("PUT", `/admin/v1/groups/${group.groupId}/routing`, {
    routes: [{ processors: ["stripe", "square"] }],
  });
  // Stripe's SDK tries three times: every answer is lost, and the create goes on to Square.
  await service.sandboxPost("/sandbox/faults", {
    processor: "stripe",
    checkouts: { mode: "drop_response", count: 3 },
  });
  const created = await service.createPayment(group);
  await service.sandboxDelete("/sandbox/faults");
  const transactionId: string = created.body.data.transactionId;
  const session = [...sandbox.state.sessions.values()].find(
    (each) => each.metadata.transactionId === transactionId,
  );
  if (!session) throw new Error("the lost create opened no Stripe checkout");
  await service.sandboxPost(`/sandbox/sessions/${session.id}/complete`, {
    outcome: "succeeded",
    silent: true,
  });
  await service.services.payments.abandoned.closeDue();
  const item = await waitFor(async () => {
    const queue = (await service.admin("GET", "/admin/v1/reconciliation")).body.data as {
      id: string;
      kind: string;
      processorPaymentId: string | null;
    }[];
    return queue.find(
      (each) => each.kind === "orphan_checkout_paid" && each.processorPaymentId === session.payment_intent,
    );
  });
  return {
    itemId: item.id,
    transactionId,
    sessionId: session.id,
    paymentIntent: session.payment_intent as string,
  };
}
