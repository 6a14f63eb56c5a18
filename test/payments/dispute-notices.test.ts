// The owners' dispute e-mails: when a dispute opens, and 72 hours before its deadline while nothing
// is submitted; each at most once, however many workers look.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DisputeNotices } from "../../src/payments/disputes/notices.ts";
import { systemClock } from "../../src/platform/clock.ts";
import type { MailMessage } from "../../src/platform/mail/mailer.ts";
import { openDispute } from "../helpers/disputes.ts";
import { cheapPasswordHashes, signedInUser } from "../helpers/pages.ts";
import { startTestService, type TestGroup, type TestService } from "../helpers/service.ts";
import { smtpListener } from "../helpers/smtp.ts";
import { waitFor } from "../helpers/wait.ts";

describe("dispute e-mails", () => {
  cheapPasswordHashes();
  let service: TestService;
  let group: TestGroup;
  let smtp: Awaited<ReturnType<typeof smtpListener>>;
  before(async () => {
    smtp = await smtpListener();
    service = await startTestService({ SMTP_URL: smtp.url, DISPUTE_NOTICE_INTERVAL_MS: "50" });
    group = await service.createGroup({ name: "Mail shop" });
    await signedInUser(service, group, "owner@shop.example", "owner");
    await signedInUser(service, group, "dev@shop.example", "developer");
    await signedInUser(service, group, "viewer@shop.example", "viewer");
  });
  after(async () => {
    await service.close();
    await smtp.close();
  });

  const dispute = async (dueInHours: number) =>
    (await openDispute(service, group, { dueInHours, payment: { amount: 2599 } })).dispute;
  const about = (disputeId: string) => smtp.messages.filter((message) => message.body.includes(disputeId));

  it("tells the owners, and only them, when a dispute opens and again 72 hours before its deadline", async () => {
    const soon = await dispute(30);
    const later = await dispute(24 * 6);
    await waitFor(async () =>
      about(soon.disputeId).length >= 2 && about(later.disputeId).length >= 1 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const soonMail = about(soon.disputeId);
    assert.equal(soonMail.length, 2, "opened and due soon, once each");
    assert.deepEqual(
      soonMail.map((message) => message.to),
      [["owner@shop.example"], ["owner@shop.example"]],
    );
    assert.match(soonMail.map((message) => message.body).join("\n"), /was disputed: answer by/);
    assert.match(soonMail.map((message) => message.body).join("\n"), /nothing has been submitted/);
    assert.equal(about(later.disputeId).length, 1, "a deadline six days away is not yet due");
  });

  it("sends no deadline e-mail once evidence is submitted", async () => {
    const answered = await dispute(24 * 10);
    await waitFor(async () => (about(answered.disputeId).length >= 1 ? true : undefined));
    await service.api(group, "POST", `/api/v1/disputes/${answered.disputeId}/evidence`, {
      productDescription: "Tea",
      submit: true,
    });
    await service.services.db.query(
      "UPDATE disputes SET evidence_due_by = now() + interval '10 hours' WHERE id = $1",
      [answered.disputeId],
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(about(answered.disputeId).length, 1);
  });

  it("several workers at once send each e-mail once", async () => {
    const fresh = await dispute(24 * 8);
    // Taken back from the service's own worker, then raced by three more.
    await waitFor(async () => (about(fresh.disputeId).length >= 1 ? true : undefined));
    await service.services.db.query(
      "UPDATE disputes SET opened_notice_at = NULL, evidence_due_by = now() + interval '5 hours' WHERE id = $1",
      [fresh.disputeId],
    );
    const sent: MailMessage[] = [];
    const workers = [1, 2, 3].map(
      () =>
        new DisputeNotices({
          db: service.services.db,
          mailer: { send: async (message) => void sent.push(message) },
          ownersOf: async () => ["owner@shop.example"],
          publicUrl: service.url,
          clock: systemClock,
          log: service.app.log,
        }),
    );
    await Promise.all(workers.map((worker) => worker.sendDue()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const here = sent.filter((message) => message.text.includes(fresh.disputeId)).length;
    const there = about(fresh.disputeId).length - 1;
    assert.equal(here + there, 2, "the opened e-mail again and the deadline one, once each in all");
  });
});
