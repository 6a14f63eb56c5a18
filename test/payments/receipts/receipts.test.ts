// E-mail receipts, from the outbox, at most once per event, against an SMTP listener (docs/api.md,
// "Branding").
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { enqueueReceipt } from "../../../src/payments/receipts/outbox.ts";
import type { Queryable } from "../../../src/platform/db/database.ts";
import { startTestService, type TestGroup, type TestService } from "../../helpers/service.ts";
import { smtpListener } from "../../helpers/smtp.ts";
import { waitFor } from "../../helpers/wait.ts";

/** The decoded text of a raw message (quoted-printable soft breaks joined). */
const textOf = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

describe("receipts", () => {
  let service: TestService;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  let group: TestGroup;
  let quiet: TestGroup;
  before(async () => {
    smtp = await smtpListener();
    service = await startTestService({
      SMTP_URL: smtp.url,
      SMTP_FROM: "Receipts <receipts@checkout.example>",
      RECEIPT_SUBJECT: "Receipt: {merchant}",
    });
    group = await service.createGroup({ name: "Receipt shop" });
    quiet = await service.createGroup({ name: "No receipts" });
    const on = await service.api(group, "PUT", "/api/v1/branding", {
      receipts: true,
      // A name that tries to end the subject header and add one of its own.
      displayName: "Corner <b>Bakery</b>\r\nBcc: thief@example.com",
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
  });
  after(async () => {
    await service.close();
    await smtp.close();
  });

  const pay = async (who: TestGroup, email: string) => {
    const created = (await service.createPayment(who, { customerEmail: email, amount: 1999 })).body.data;
    await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
    await waitFor(async () =>
      (await service.api(who, "GET", `/api/v1/payments/${created.transactionId}`)).body.data.status ===
      "succeeded"
        ? true
        : undefined,
    );
    return created.transactionId as string;
  };
  const to = (address: string) => smtp.messages.filter((message) => message.to.includes(address));

  it("one receipt when a payment succeeds: amount, merchant, transaction, date; From and subject from settings", async () => {
    const id = await pay(group, "buyer@example.com");
    const [receipt] = await waitFor(async () =>
      to("buyer@example.com").length > 0 ? to("buyer@example.com") : undefined,
    );
    const text = textOf(receipt?.body ?? "");
    assert.match(text, /From: Receipts <receipts@checkout\.example>/);
    assert.match(text, /Subject: Receipt: Corner <b>Bakery<\/b> Bcc: thief@example\.com/);
    assert.doesNotMatch(text, /^Bcc:/m, "the name could not add a header");
    assert.deepEqual(receipt?.to, ["buyer@example.com"]);
    assert.match(text, /Payment received: 19\.99 USD/);
    assert.match(text, new RegExp(`Transaction: ${id}`));
    assert.match(text, /Date: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    assert.match(text, /Content-Type: text\/plain/, "plain text: nothing in it is markup");
  });

  it("one per refund, none on a webhook resend, none for a group without receipts", async () => {
    const id = await pay(group, "refunded@example.com");
    await waitFor(async () => (to("refunded@example.com").length === 1 ? true : undefined));
    for (const [key, amount] of [
      ["r-1", 500],
      ["r-2", 300],
    ] as const) {
      const refund = await service.api(
        group,
        "POST",
        `/api/v1/payments/${id}/refunds`,
        { amount },
        {
          "idempotency-key": key,
        },
      );
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      // The same request again is a replay: no second refund, no second receipt.
      await service.api(
        group,
        "POST",
        `/api/v1/payments/${id}/refunds`,
        { amount },
        { "idempotency-key": key },
      );
    }
    await waitFor(async () => (to("refunded@example.com").length === 3 ? true : undefined));
    const refunds = to("refunded@example.com")
      .slice(1)
      .map((message) => textOf(message.body));
    assert.match(refunds[0] ?? "", /Refund: 5\.00 USD/);
    assert.match(refunds[1] ?? "", /Refund: 3\.00 USD/);

    const events = (await service.api(group, "GET", `/api/v1/payments/${id}/events`)).body.data;
    for (const event of events) {
      await service.api(group, "POST", `/api/v1/payments/${id}/events/${event.eventId}/resend`);
    }
    await pay(quiet, "nobody-mails-me@example.com");
    await sleep(1500);
    assert.equal(to("refunded@example.com").length, 3, "a resend sends the webhook, not the receipt");
    assert.equal(to("nobody-mails-me@example.com").length, 0);
    const rows = await service.services.db.query<{ state: string }>(
      "SELECT state FROM receipt_emails WHERE recipient = 'refunded@example.com'",
    );
    assert.deepEqual(
      rows.map((row) => row.state),
      ["sent", "sent", "sent"],
    );
  });
});

describe("a receipt is written only when there is someone to send it to", () => {
  it("no receipt without the customer's address, with receipts off, or for events that are not money", async () => {
    const written: unknown[] = [];
    const tx = {
      query: async (_sql: string, params: unknown[]) => written.push(params),
    } as unknown as Queryable;
    const occasion = {
      eventId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b",
      event: "payment.completed",
      paymentId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6c",
      groupId: "3f1b7c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6d",
      customerEmail: "a@example.com" as string | null,
      currency: "usd",
      amount: 1999,
      refunded: 0,
      receiptsOn: true,
    };
    await enqueueReceipt(tx, { ...occasion, customerEmail: null });
    await enqueueReceipt(tx, { ...occasion, customerEmail: "" });
    await enqueueReceipt(tx, { ...occasion, receiptsOn: false });
    await enqueueReceipt(tx, { ...occasion, event: "payment.failed" });
    await enqueueReceipt(tx, { ...occasion, event: "payment.refunded", refunded: 0 });
    assert.equal(written.length, 0);
    await enqueueReceipt(tx, occasion);
    assert.equal(written.length, 1);
  });
});
