// Disputes through either processor: recorded from their events, answered with evidence or an
// acceptance through the port, and every call counted at the sandbox, not only in our tables.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openDispute } from "../helpers/disputes.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { waitFor } from "../helpers/wait.ts";

const REASONS = { stripe: "product_not_received", square: "NOT_RECEIVED" } as const;

describe("disputes", () => {
  let service: TestService;
  const groups: Record<"stripe" | "square", TestGroup> = {} as Record<"stripe" | "square", TestGroup>;
  before(async () => {
    service = await startTestService({ CHECKOUT_TTL_SECONDS: "60", REFUND_DEADLINE_MS: "2000" });
    groups.stripe = await service.createGroup({ name: "Stripe shop" });
    groups.square = await service.createGroup({ name: "Square shop" });
    const routed = await service.admin("PUT", `/admin/v1/groups/${groups.square.groupId}/routing`, {
      routes: [{ processors: ["square"] }],
    });
    assert.equal(routed.status, 200);
  });
  after(() => service.close());

  const sandbox = () => {
    if (!service.sandbox) throw new Error("the sandbox runs in these tests");
    return service.sandbox;
  };
  const api = (processor: "stripe" | "square", method: string, path: string, body?: unknown) =>
    service.api(groups[processor], method, path, body);
  const until = <T>(check: () => Promise<T | undefined>, what: string) => waitFor(check, 10000, what);
  const disputesOf = async (processor: "stripe" | "square", transactionId: string) =>
    (await api(processor, "GET", `/api/v1/payments/${transactionId}/disputes`)).body.data.disputes;
  /** The calls the sandbox received on a dispute's path, by method and path suffix. */
  const callsAt = (processor: string, disputeRef: string, suffix: string) =>
    sandbox().state.requests.filter(
      (request) =>
        request.processor === processor &&
        request.method === "POST" &&
        request.path.split("?")[0]?.endsWith(`/disputes/${disputeRef}${suffix}`),
    );

  /** A paid payment with a dispute opened at the processor, once our record of it exists. */
  const disputed = (processor: "stripe" | "square", evidenceDueBy?: Date, shop = groups[processor]) =>
    openDispute(service, shop, {
      payment: { amount: 4200 },
      reason: REASONS[processor],
      ...(evidenceDueBy && { evidenceDueBy }),
    });
  const paymentStatus = async (processor: "stripe" | "square", transactionId: string) =>
    (await api(processor, "GET", `/api/v1/payments/${transactionId}`)).body.data.status;
  const webhooksOf = async (transactionId: string) =>
    service.services.db.query<{ event: string; status: string }>(
      "SELECT event, status FROM webhook_events WHERE payment_id = $1 ORDER BY created_at",
      [transactionId],
    );

  for (const processor of ["stripe", "square"] as const) {
    describe(`through ${processor}`, () => {
      it("records the processor's dispute with every field, in our words", async () => {
        const due = new Date(Date.now() + 5 * 86_400_000);
        due.setUTCMilliseconds(0);
        const { transactionId, dispute, ref } = await disputed(processor, due);
        assert.deepEqual(Object.keys(dispute).sort(), [
          "amount",
          "createdAt",
          "currency",
          "disputeId",
          "evidenceDueBy",
          "evidenceSubmittedAt",
          "processor",
          "processorDisputeId",
          "reason",
          "status",
          "transactionId",
          "updatedAt",
        ]);
        assert.equal(dispute.transactionId, transactionId);
        assert.equal(dispute.processor, processor);
        assert.equal(dispute.processorDisputeId, ref);
        assert.equal(dispute.amount, 4200);
        assert.equal(dispute.currency, "usd");
        assert.equal(dispute.reason, "product_not_received");
        assert.equal(dispute.status, "needs_response");
        assert.equal(dispute.evidenceDueBy, due.toISOString());
        assert.equal(dispute.evidenceSubmittedAt, null);
        assert.equal(await paymentStatus(processor, transactionId), "disputed");
        const one = await api(processor, "GET", `/api/v1/disputes/${dispute.disputeId}`);
        assert.deepEqual(one.body.data, dispute);
      });

      it("files evidence as a draft, then submits it: under review, and nothing more is taken", async () => {
        const { transactionId, dispute, ref } = await disputed(processor);
        const path = `/api/v1/disputes/${dispute.disputeId}/evidence`;
        const draft = await api(processor, "POST", path, { productDescription: "A blue teapot, 1 l" });
        assert.equal(draft.status, 200, JSON.stringify(draft.body));
        assert.equal(draft.body.data.status, "needs_response");
        const submitted = await api(processor, "POST", path, {
          shippingTracking: "1Z999AA10123456784",
          customerCommunication: "The customer wrote on the 3rd that it arrived.",
          submit: true,
        });
        assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
        assert.equal(submitted.body.data.status, "under_review");
        assert.ok(submitted.body.data.evidenceSubmittedAt);

        // At the processor: the texts under its own headings, and one submission.
        if (processor === "stripe") {
          const atStripe = sandbox().state.disputes.get(ref);
          assert.equal(atStripe?.status, "under_review");
          assert.equal(atStripe?.evidence_details.submission_count, 1);
          assert.equal(atStripe?.evidence.product_description, "A blue teapot, 1 l");
          assert.equal(atStripe?.evidence.shipping_tracking_number, "1Z999AA10123456784");
          assert.match(atStripe?.evidence.uncategorized_text ?? "", /arrived/);
        } else {
          const atSquare = sandbox().state.squareDisputes.get(ref);
          assert.equal(atSquare?.state, "PROCESSING");
          assert.equal(atSquare?.evidence_ids.length, 3);
          const types = callsAt("square", ref, "/evidence-text").map(
            (call) => (call.body as { evidence_type: string }).evidence_type,
          );
          assert.deepEqual(types.sort(), [
            "CARDHOLDER_COMMUNICATION",
            "PRODUCT_OR_SERVICE_DESCRIPTION",
            "TRACKING_NUMBER",
          ]);
          assert.equal(callsAt("square", ref, "/submit-evidence").length, 1);
        }

        const again = await api(processor, "POST", path, { uncategorizedText: "More" });
        assert.equal(again.status, 409);
        assert.equal(again.body.error.code, "DISPUTE_CLOSED");
        const accept = await api(processor, "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
        assert.equal(accept.body.error?.code, "DISPUTE_CLOSED");

        await service.sandboxPost(`/sandbox/disputes/${ref}/close`, { outcome: "won" });
        await until(
          async () => ((await paymentStatus(processor, transactionId)) === "dispute_won" ? true : undefined),
          "won",
        );
        const [closed] = await disputesOf(processor, transactionId);
        assert.equal(closed.status, "won");
        assert.deepEqual(
          (await webhooksOf(transactionId)).map((row) => row.status),
          ["succeeded", "disputed"],
          "a won dispute sends no webhook",
        );
      });

      it("accepts: conceded at the processor once, the payment dispute_lost with its webhook", async () => {
        const { transactionId, dispute, ref } = await disputed(processor);
        const accepted = await api(processor, "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
        assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
        assert.equal(accepted.body.data.status, "accepted");
        assert.equal(await paymentStatus(processor, transactionId), "dispute_lost");
        const suffix = processor === "stripe" ? "/close" : "/accept";
        assert.equal(callsAt(processor, ref, suffix).length, 1);
        // The processor's own word comes after (Stripe: lost): the record stays accepted.
        await until(async () => {
          const events = await service.services.db.query(
            "SELECT 1 FROM processor_events WHERE payment_id = $1 AND type IN ('charge.dispute.closed', 'dispute.state.updated')",
            [transactionId],
          );
          return events.length > 0 ? true : undefined;
        }, "the processor's close event");
        const [after] = await disputesOf(processor, transactionId);
        assert.equal(after.status, "accepted");
        assert.deepEqual(await webhooksOf(transactionId), [
          { event: "payment.completed", status: "succeeded" },
          { event: "payment.disputed", status: "disputed" },
          { event: "payment.disputed", status: "dispute_lost" },
        ]);
        const twice = await api(processor, "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
        assert.equal(twice.status, 409);
        assert.equal(callsAt(processor, ref, suffix).length, 1);
      });

      it("takes nothing after the deadline", async () => {
        const { transactionId, dispute, ref } = await disputed(processor, new Date(Date.now() + 1500));
        await new Promise((resolve) => setTimeout(resolve, 1600));
        for (const [path, body] of [
          ["evidence", { productDescription: "Late" }],
          ["accept", undefined],
        ] as const) {
          const late = await api(processor, "POST", `/api/v1/disputes/${dispute.disputeId}/${path}`, body);
          assert.equal(late.status, 409, path);
          assert.equal(late.body.error.code, "DISPUTE_CLOSED");
        }
        assert.equal(callsAt(processor, ref, "").length, 0);
        assert.equal(callsAt(processor, ref, "/accept").length + callsAt(processor, ref, "/close").length, 0);
        assert.equal(await paymentStatus(processor, transactionId), "disputed");
      });

      it("an acceptance whose answer was lost is not answered as done, and the processor's word settles it", async () => {
        const { transactionId, dispute, ref } = await disputed(processor);
        // Stripe's SDK asks three times under one key; every answer is lost.
        const count = processor === "stripe" ? 3 : 1;
        await service.sandboxPost("/sandbox/faults", {
          processor,
          disputes: { mode: "drop_response", count },
        });
        const lost = await api(processor, "POST", `/api/v1/disputes/${dispute.disputeId}/accept`);
        assert.equal(lost.status, 503, JSON.stringify(lost.body));
        // Carried out at the processor; its event tells us, and the dispute shows it.
        const settled = await until(async () => {
          const [now] = await disputesOf(processor, transactionId);
          return now.status === "accepted" ? now : undefined;
        }, "accepted once the processor says so");
        assert.equal(settled.status, "accepted");
        assert.equal(await paymentStatus(processor, transactionId), "dispute_lost");
        const suffix = processor === "stripe" ? "/close" : "/accept";
        // Stripe's retries carry one key, which Stripe carries out once.
        const keys = new Set(callsAt(processor, ref, suffix).map((call) => call.idempotencyKey));
        assert.equal(keys.size, 1, "asked once");
      });
    });
  }

  it("a submission that failed at the processor changes nothing and can be made again", async () => {
    const { dispute, ref } = await disputed("stripe");
    await service.sandboxPost("/sandbox/faults", {
      processor: "stripe",
      disputes: { mode: "error_500", count: 3 },
    });
    const failed = await api("stripe", "POST", `/api/v1/disputes/${dispute.disputeId}/evidence`, {
      productDescription: "Tea",
      submit: true,
    });
    assert.equal(failed.status, 503, JSON.stringify(failed.body));
    await service.services.db.query(
      "UPDATE disputes SET pending_since = now() - interval '1 hour' WHERE id = $1",
      [dispute.disputeId],
    );
    // Read back: still waiting for a response at Stripe, so the submission did not happen.
    assert.equal(await service.services.payments.disputes.settleDue(), 1);
    const [row] = await service.services.db.query<{ status: string; pending_action: string | null }>(
      "SELECT status, pending_action FROM disputes WHERE id = $1",
      [dispute.disputeId],
    );
    assert.deepEqual({ ...row }, { status: "needs_response", pending_action: null });
    const retried = await api("stripe", "POST", `/api/v1/disputes/${dispute.disputeId}/evidence`, {
      productDescription: "Tea",
      submit: true,
    });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.data.status, "under_review");
    assert.equal(sandbox().state.disputes.get(ref)?.evidence_details.submission_count, 1);
  });

  it("answers bad input with the error envelope and changes nothing", async () => {
    const { dispute, ref } = await disputed("stripe");
    const path = `/api/v1/disputes/${dispute.disputeId}/evidence`;
    for (const body of [
      {},
      { productDescription: "x".repeat(20_001) },
      { productDescription: 42 },
      { productDescription: "" },
      { notAField: "x" },
      { submit: "yes" },
      [],
    ]) {
      const refused = await api("stripe", "POST", path, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error.code, "INVALID_REQUEST");
    }
    const other = await service.createGroup({ name: "Someone else" });
    for (const [method, suffix] of [
      ["GET", ""],
      ["POST", "/accept"],
    ] as const) {
      const foreign = await service.api(other, method, `/api/v1/disputes/${dispute.disputeId}${suffix}`);
      assert.equal(foreign.status, 404);
    }
    assert.equal((await api("stripe", "GET", "/api/v1/disputes/not-a-uuid")).status, 404);
    assert.equal((await api("stripe", "GET", "/api/v1/disputes?limit=0")).status, 400);
    assert.equal((await api("stripe", "GET", "/api/v1/disputes?status=open")).status, 400);
    assert.equal(
      (await service.api(other, "GET", `/api/v1/disputes?after=${dispute.disputeId}`)).status,
      400,
    );
    assert.equal(callsAt("stripe", ref, "").length, 0);
    const [unchanged] = await disputesOf("stripe", String(dispute.transactionId));
    assert.equal(unchanged.status, "needs_response");
  });

  it("lists open disputes soonest deadline first, a page at a time, then closed ones", async () => {
    const shop = await service.createGroup({ name: "Inbox shop" });
    const api = (method: string, path: string) => service.api(shop, method, path);
    const later = await disputed("stripe", new Date(Date.now() + 6 * 86_400_000), shop);
    const sooner = await disputed("stripe", new Date(Date.now() + 2 * 86_400_000), shop);
    const closed = await disputed("stripe", new Date(Date.now() + 1 * 86_400_000), shop);
    await service.sandboxPost(`/sandbox/disputes/${closed.ref}/close`, { outcome: "lost" });
    await until(async () => {
      const [row] = (await api("GET", `/api/v1/payments/${closed.transactionId}/disputes`)).body.data
        .disputes;
      return row.status === "lost" ? true : undefined;
    }, "lost");
    const first = (await api("GET", "/api/v1/disputes?limit=2")).body.data;
    assert.deepEqual(
      first.disputes.map((row: { disputeId: string }) => row.disputeId),
      [sooner.dispute.disputeId, later.dispute.disputeId],
    );
    assert.equal(first.hasMore, true);
    const second = (await api("GET", `/api/v1/disputes?limit=2&after=${first.nextCursor}`)).body.data;
    assert.deepEqual(
      second.disputes.map((row: { disputeId: string }) => row.disputeId),
      [closed.dispute.disputeId],
    );
    assert.equal(second.hasMore, false);
    assert.equal(second.nextCursor, null);
    const lost = (await api("GET", "/api/v1/disputes?status=lost")).body.data.disputes;
    assert.deepEqual(
      lost.map((row: { disputeId: string }) => row.disputeId),
      [closed.dispute.disputeId],
    );
  });
});
