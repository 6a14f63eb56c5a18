// E-mail receipts, from the outbox, at most once per event, against an SMTP listener (docs/api.md,
// "Branding").
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
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
    const mail = await simpleParser(receipt?.body ?? "");
    assert.match(mail.text ?? "", /^Payment received: 19\.99 USD$/m);
    assert.match(mail.text ?? "", new RegExp(`^Transaction: ${id}$`, "m"));
    assert.match(mail.text ?? "", /^Date: \d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} UTC$/m, "the date in words");
    assert.match(mail.text ?? "", new RegExp(`^Reference: ${id.slice(0, 8).toUpperCase()}$`, "m"));
    const html = String(mail.html);
    assert.match(html, /19\.99 USD/);
    assert.match(html, /Corner &lt;b&gt;Bakery&lt;\/b&gt;/, "the merchant's name is text in the HTML too");
    assert.doesNotMatch(html, /<b>Bakery/);
    assert.equal(mail.replyTo, undefined, "no reply-to until the merchant sets one");
  });

  it("in the merchant's branding: the item, its colour, its logo carried in the mail, replies to the merchant", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
      "base64",
    );
    const branded = await service.api(group, "PUT", "/api/v1/branding", {
      brandColor: "#1A7F5A",
      logo: `data:image/png;base64,${png.toString("base64")}`,
      replyTo: "help@bakery.example",
    });
    assert.equal(branded.status, 200, JSON.stringify(branded.body));
    assert.equal(branded.body.data.replyTo, "help@bakery.example");
    try {
      const created = (
        await service.createPayment(group, {
          customerEmail: "branded@example.com",
          amount: 1800,
          description: "Sourdough loaf",
        })
      ).body.data;
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      const [receipt] = await waitFor(async () =>
        to("branded@example.com").length > 0 ? to("branded@example.com") : undefined,
      );
      const mail = await simpleParser(receipt?.body ?? "", { keepCidLinks: true });
      assert.equal(mail.replyTo?.value[0]?.address, "help@bakery.example");
      assert.match(mail.text ?? "", /^For: Sourdough loaf$/m);
      assert.match(mail.text ?? "", /Reply to this e-mail to reach Corner/);
      const html = String(mail.html);
      assert.match(html, /Sourdough loaf/);
      assert.match(html, /background:#1a7f5a/);
      assert.match(html, /<img src="cid:merchant-logo"/);
      const [attached] = mail.attachments;
      assert.equal(attached?.cid, "merchant-logo");
      assert.deepEqual(attached?.content, png, "the logo travels with the mail, never fetched");
    } finally {
      await service.api(group, "PUT", "/api/v1/branding", { brandColor: null, logo: null, replyTo: null });
    }
  });

  it("refuses a reply-to that is not one address, and changes nothing", async () => {
    for (const replyTo of [
      "not an address",
      "help@bakery.example\r\nBcc: thief@example.com",
      "a@b.c, d@e.f",
      `${"a".repeat(250)}@b.example`,
    ]) {
      const answer = await service.api(group, "PUT", "/api/v1/branding", { replyTo, brandColor: "#000000" });
      assert.equal(answer.status, 400, replyTo);
      assert.equal(answer.body.error.code, "INVALID_REQUEST");
    }
    const current = (await service.api(group, "GET", "/api/v1/branding")).body.data;
    assert.equal(current.replyTo, null);
    assert.equal(current.brandColor, null);
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

describe("MAIL_DIR, to see e-mail on a laptop without an SMTP server", () => {
  it("keeps each receipt as an .eml file that a mail program opens", async () => {
    const dir = await mkdtemp(join(tmpdir(), "checkout-mail-"));
    const service = await startTestService({ MAIL_DIR: dir });
    try {
      const group = await service.createGroup({ name: "Laptop shop" });
      assert.equal((await service.api(group, "PUT", "/api/v1/branding", { receipts: true })).status, 200);
      const created = (await service.createPayment(group, { customerEmail: "me@example.com", amount: 500 }))
        .body.data;
      await service.sandboxPost(`/sandbox/sessions/${created.sessionId}/complete`, { outcome: "succeeded" });
      const [file] = await waitFor(async () => {
        const files = (await readdir(dir)).filter((name) => name.endsWith(".eml"));
        return files.length > 0 ? files : undefined;
      });
      const mail = await simpleParser(await readFile(join(dir, file ?? "")));
      assert.equal(mail.to && "value" in mail.to ? mail.to.value[0]?.address : undefined, "me@example.com");
      assert.match(mail.text ?? "", /Payment received: 5\.00 USD/);
      assert.match(String(mail.html), /Laptop shop/);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
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
