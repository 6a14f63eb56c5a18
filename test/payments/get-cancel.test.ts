import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";

describe("GET and DELETE /api/v1/payments/:id", () => {
  let service: TestService;
  let group: TestGroup;
  let otherGroup: TestGroup;

  before(async () => {
    service = await startTestService();
    group = await service.createGroup();
    otherGroup = await service.createGroup({ name: "Someone else" });
  });
  after(() => service.close());

  const create = async (overrides: Record<string, unknown> = {}) =>
    (await service.createPayment(group, overrides)).body.data.transactionId as string;
  const read = (id: string, as = group) => service.api(as, "GET", `/api/v1/payments/${id}`);

  describe("metadata and description", () => {
    it("hides reserved `_` keys and the `description` key; metadata null when nothing is left", async () => {
      const id = await create({
        metadata: { _internal: "x", orderId: "A-1", qty: 2, gift: false, note: null },
      });
      const { body } = await read(id);
      assert.deepEqual(body.data.metadata, { orderId: "A-1", qty: 2, gift: false, note: null });
      assert.equal(body.data.description, null);
      const onlyReserved = await create({ metadata: { _a: 1, description: 5 } });
      assert.equal((await read(onlyReserved)).body.data.metadata, null);
      assert.equal(
        (await read(onlyReserved)).body.data.description,
        null,
        "a non-string description is dropped",
      );
      const none = await create();
      assert.equal((await read(none)).body.data.metadata, null);
    });

    it("promotes a string metadata description; the top-level description wins", async () => {
      const promoted = await create({ metadata: { description: "From metadata", sku: "S" } });
      assert.equal((await read(promoted)).body.data.description, "From metadata");
      assert.deepEqual((await read(promoted)).body.data.metadata, { sku: "S" });
      const both = await create({ description: "Top level", metadata: { description: "From metadata" } });
      assert.equal((await read(both)).body.data.description, "Top level");
      assert.equal((await read(both)).body.data.metadata, null);
    });

    it("returns every field of the payment object with integer cents and UTC timestamps", async () => {
      const id = await create({ amount: 12345, currency: "CAD", description: "Two mugs" });
      const { status, body } = await read(id);
      assert.equal(status, 200);
      assert.equal(body.success, true);
      const payment = body.data;
      assert.equal(payment.id, id);
      assert.equal(payment.amount, 12345);
      assert.equal(payment.currency, "cad");
      assert.equal(payment.customerEmail, "jane@example.com");
      assert.equal(payment.description, "Two mugs");
      assert.match(payment.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(payment.completedAt, null);
      assert.equal(payment.processorPaymentIntentId, undefined, "only present after payment");
      assert.equal(payment.processor, "stripe", "the processor whose link the customer gets");
    });
  });

  describe("404 rules", () => {
    it("answers the same 404 NOT_FOUND for unknown, malformed and another group's ids", async () => {
      const theirs = (await service.createPayment(otherGroup)).body.data.transactionId;
      const answers = await Promise.all([
        read("6f1c3c52-7d43-4c59-9a34-0f1a2b3c4d5e"),
        read("not-a-uuid"),
        read("'; DROP TABLE payments; --"),
        read(theirs),
      ]);
      for (const answer of answers) {
        assert.equal(answer.status, 404);
        assert.deepEqual(answer.body, {
          success: false,
          error: { code: "NOT_FOUND", message: "Payment not found" },
        });
      }
      const cancelTheirs = await service.api(group, "DELETE", `/api/v1/payments/${theirs}`);
      assert.equal(cancelTheirs.status, 404);
      assert.equal((await read(theirs, otherGroup)).body.data.status, "processing");
    });
  });

  describe("cancel", () => {
    it("cancels a processing payment, sets completedAt, and keeps the link open", async () => {
      const created = (await service.createPayment(group)).body.data;
      const response = await service.api(group, "DELETE", `/api/v1/payments/${created.transactionId}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.success, true);
      assert.equal(response.body.data.id, created.transactionId);
      assert.equal(response.body.data.status, "cancelled");
      assert.equal(typeof response.body.data.message, "string");
      const payment = (await read(created.transactionId)).body.data;
      assert.equal(payment.status, "cancelled");
      assert.ok(Date.parse(payment.completedAt) <= Date.now());
      const link = await service.request("GET", new URL(created.paymentUrl).pathname);
      assert.equal(link.status, 303, "the hosted link stays open after a cancel");
    });

    it("answers 400 ALREADY_COMPLETED for a finished payment and changes nothing", async () => {
      const id = await create();
      await service.api(group, "DELETE", `/api/v1/payments/${id}`);
      const before = (await read(id)).body.data;
      const again = await service.api(group, "DELETE", `/api/v1/payments/${id}`);
      assert.equal(again.status, 400);
      assert.equal(again.body.error.code, "ALREADY_COMPLETED");
      assert.deepEqual((await read(id)).body.data, before);

      const paid = (await service.createPayment(group)).body.data;
      service.sandbox?.simulationOf(paid.sessionId)?.attempt(paid.sessionId, "succeeded");
      await service.request("GET", new URL(paid.paymentUrl).pathname.replace("/pay/", "/return/"));
      const refused = await service.api(group, "DELETE", `/api/v1/payments/${paid.transactionId}`);
      assert.equal(refused.body.error.code, "ALREADY_COMPLETED");
      assert.equal((await read(paid.transactionId)).body.data.status, "succeeded");
    });

    it("rejects a DELETE with Content-Type: application/json and an empty body, cancelling nothing", async () => {
      const id = await create();
      const response = await service.request("DELETE", `/api/v1/payments/${id}`, {
        headers: {
          "x-public-key": group.publicKey,
          "x-secret-key": group.secretKey,
          "content-type": "application/json",
        },
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, "INVALID_REQUEST");
      assert.equal((await read(id)).body.data.status, "processing");
    });

    it("lets exactly one of 200 concurrent cancels win", async () => {
      const id = await create({ webhookUrl: "https://hooks.example.com/orders" });
      const responses = await Promise.all(
        Array.from({ length: 200 }, () => service.api(group, "DELETE", `/api/v1/payments/${id}`)),
      );
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 200).length, 1);
      assert.equal(statuses.filter((status) => status === 400).length, 199);
      const changes = await service.services.db.query(
        "SELECT * FROM payment_status_changes WHERE payment_id = $1 AND to_status = 'cancelled'",
        [id],
      );
      assert.equal(changes.length, 1);
      const events = await service.services.db.query<{ event: string; status: string }>(
        "SELECT event, status FROM webhook_events WHERE payment_id = $1",
        [id],
      );
      assert.deepEqual(events, [{ event: "payment.failed", status: "cancelled" }]);
    });
  });
});
