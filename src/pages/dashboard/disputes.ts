import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { EvidenceInput } from "../../payments/disputes/service.ts";
import type { Payments } from "../../payments/module.ts";
import { DomainError } from "../../platform/errors/domain-error.ts";
import { money } from "../../platform/format/money.ts";
import { uuidParam } from "../../platform/http/schemas.ts";
import { DISPUTE_EVIDENCE_FIELDS, type DisputeEvidence } from "../../processor/port.ts";
import { auditBy } from "../kit/audit.ts";
import { time } from "../kit/format.ts";
import { formBody } from "../kit/forms.ts";
import { type Fragment, html } from "../kit/html.ts";
import { paymentStatusBadge, statusBadge, statusChangeRow, words } from "../kit/labels.ts";
import { csrfField, setFlash } from "../kit/layout.ts";
import { dashboardPage, merchantOf } from "./common.ts";
import { can, ensureAllowed } from "./permissions.ts";

/** A dispute this close to its deadline is marked on the inbox. */
const DUE_SOON_MS = 72 * 3_600_000;

const disputeParams = {
  type: "object",
  required: ["disputeId"],
  properties: { disputeId: uuidParam("Dispute") },
} as const;

const EVIDENCE_LABELS: Record<keyof DisputeEvidence, [label: string, hint: string]> = {
  productDescription: ["Product or service", "What the customer bought"],
  customerCommunication: ["Customer communication", "What the customer wrote to you, with dates"],
  refundPolicy: ["Refund policy", "The policy the customer was shown, and where"],
  serviceDate: ["Service date", "When the goods were delivered or the service given"],
  shippingTracking: ["Shipping tracking", "The carrier and tracking number"],
  uncategorizedText: ["Anything else", "Other facts that show the payment was right"],
};

const text = { type: "string", maxLength: 20000 } as const;
const evidenceForm = formBody(
  {
    ...Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.map((field) => [field, text])),
    submit: { type: "string", enum: ["true"] },
    confirm: { type: "string", enum: ["true"] },
  } as Record<keyof DisputeEvidence | "submit" | "confirm", typeof text | { type: "string"; enum: ["true"] }>,
  [],
);
const acceptForm = formBody({ confirm: { type: "string", enum: ["true"] } }, []);

/**
 * /dashboard/disputes: the inbox of the group's disputes at any processor, open ones by deadline;
 * each dispute's payment, customer and history, and (owners and developers) its evidence and
 * acceptance, each asked again before it is sent.
 */
const disputePages: FastifyPluginAsync<{ payments: Payments }> = async (app, { payments }) => {
  const { disputes } = payments;

  app.get("/dashboard/disputes", async (request, reply) => {
    const principal = merchantOf(request);
    // Open ones come first, by deadline; the closed ones after them, newest first.
    const { disputes: listed } = await disputes.list(principal.groupId, {}, 100);
    const now = Date.now();
    const waiting = listed.filter((dispute) => isOpen(dispute.status));
    const done = listed.filter((dispute) => !isOpen(dispute.status)).slice(0, 20);
    const dueSoon = (due: string | null) => due !== null && Date.parse(due) - now < DUE_SOON_MS;
    const rows = (list: typeof waiting) =>
      list.map(
        (dispute) =>
          html`<tr${dueSoon(dispute.evidenceDueBy) && dispute.status === "needs_response" ? html` class="due-soon"` : ""}><td>${
            dispute.evidenceDueBy ? time(new Date(dispute.evidenceDueBy)) : "—"
          }${
            dueSoon(dispute.evidenceDueBy) && dispute.status === "needs_response"
              ? html` <span class="badge failed">Due within 72 hours</span>`
              : ""
          }</td><td class="num">${money(dispute.amount, dispute.currency)}</td><td>${words(dispute.reason)}</td><td>${statusBadge(dispute.status)}</td><td>${dispute.processor}</td><td><a href="/dashboard/disputes/${dispute.disputeId}">Open</a></td></tr>`,
      );
    const head = html`<thead><tr><th>Evidence due by</th><th class="num">Amount</th><th>Reason</th><th>Status</th><th>Processor</th><th></th></tr></thead>`;
    return dashboardPage(
      request,
      reply,
      "Disputes",
      html`<h1>Disputes</h1>
<p class="muted">Chargebacks at every processor your payments go to. Answer each before its deadline with evidence, or accept it: after the deadline the processor decides against you.</p>
<h2>Open</h2>
${waiting.length ? html`<div class="table-wrap"><table id="open-disputes">${head}<tbody>${rows(waiting)}</tbody></table></div>` : html`<p class="muted" id="no-open-disputes">No open disputes.</p>`}
<h2>Closed</h2>
${done.length ? html`<div class="table-wrap"><table id="closed-disputes">${head}<tbody>${rows(done)}</tbody></table></div>` : html`<p class="muted">None yet.</p>`}`,
    );
  });

  const page = async (request: FastifyRequest, reply: FastifyReply, step?: Fragment) => {
    const principal = merchantOf(request);
    const { disputeId } = request.params as { disputeId: string };
    const dispute = await disputes.get(principal.groupId, disputeId);
    const payment = await payments.queries.get(principal.groupId, dispute.transactionId);
    const history = await payments.queries.statusHistory(payment);
    const due = dispute.evidenceDueBy ? new Date(dispute.evidenceDueBy) : null;
    const answerable =
      can(principal, "answer_disputes") &&
      dispute.status === "needs_response" &&
      (due === null || due.getTime() > Date.now());
    return dashboardPage(
      request,
      reply,
      `Dispute ${dispute.disputeId}`,
      html`<p><a href="/dashboard/disputes">← Disputes</a></p>
<h1>${money(dispute.amount, dispute.currency)} disputed ${statusBadge(dispute.status)}</h1>
<section class="card"><dl class="facts">
<dt>Reason</dt><dd id="dispute-reason">${words(dispute.reason)}</dd>
<dt>Evidence due by</dt><dd id="dispute-due">${due ? time(due) : "—"}</dd>
<dt>Evidence submitted</dt><dd>${dispute.evidenceSubmittedAt ? time(new Date(dispute.evidenceSubmittedAt)) : "—"}</dd>
<dt>Payment</dt><dd><a class="mono" href="/dashboard/payments/${payment.id}">${payment.id}</a> · ${money(payment.amount, payment.currency)} ${paymentStatusBadge(payment.status)}</dd>
<dt>Customer</dt><dd id="dispute-customer">${payment.erased_at ? html`<span class="muted">Erased ${time(payment.erased_at)}</span>` : payment.customer_email}</dd>
<dt>Description</dt><dd>${payment.description ?? "—"}</dd>
<dt>Processor</dt><dd>${dispute.processor} <span class="mono muted">${dispute.processorDisputeId}</span></dd>
<dt>Opened</dt><dd>${time(new Date(dispute.createdAt))}</dd>
</dl></section>
${step ?? (answerable ? forms(reply, dispute.disputeId) : "")}
<h2>The payment's history</h2>
<div class="table-wrap"><table id="dispute-history"><thead><tr><th>When</th><th>From</th><th>To</th><th>Reason</th></tr></thead><tbody>
${history.map(statusChangeRow)}</tbody></table></div>`,
    );
  };

  app.get("/dashboard/disputes/:disputeId", { schema: { params: disputeParams } }, (request, reply) =>
    page(request, reply),
  );

  app.post(
    "/dashboard/disputes/:disputeId/evidence",
    { schema: { params: disputeParams, body: evidenceForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "answer_disputes");
      const { disputeId } = request.params as { disputeId: string };
      const form = request.body as Partial<Record<keyof DisputeEvidence | "submit" | "confirm", string>>;
      const evidence: EvidenceInput = {};
      for (const field of DISPUTE_EVIDENCE_FIELDS) {
        const value = form[field]?.trim();
        if (value) evidence[field] = value;
      }
      const submit = form.submit === "true";
      if (submit && form.confirm !== "true") {
        return page(request, reply, confirmSubmit(reply, disputeId, evidence));
      }
      const audit = submit
        ? auditBy(request, principal.groupId, "dispute.evidence_submitted", disputeId)
        : undefined;
      return answer(request, reply, disputeId, async () => {
        await disputes.sendEvidence(
          principal.groupId,
          disputeId,
          { ...evidence, ...(submit && { submit }) },
          audit,
        );
        return submit
          ? "Evidence submitted. The processor decides; the dispute shows its outcome."
          : "Evidence saved at the processor. Submit it before the deadline.";
      });
    },
  );

  app.post(
    "/dashboard/disputes/:disputeId/accept",
    { schema: { params: disputeParams, body: acceptForm } },
    async (request, reply) => {
      const principal = merchantOf(request);
      ensureAllowed(principal, "answer_disputes");
      const { disputeId } = request.params as { disputeId: string };
      if ((request.body as { confirm?: string }).confirm !== "true") {
        return page(
          request,
          reply,
          html`<form method="post" action="/dashboard/disputes/${disputeId}/accept" class="card" id="accept-confirm">${csrfField(reply)}
<p role="alert"><strong>Accept this dispute?</strong> The disputed amount goes back to the cardholder for good, and the payment becomes dispute lost. This cannot be undone.</p>
<input type="hidden" name="confirm" value="true">
<p><button type="submit" class="danger">Accept the dispute</button> <a href="/dashboard/disputes/${disputeId}">Cancel</a></p></form>`,
        );
      }
      return answer(request, reply, disputeId, async () => {
        await disputes.accept(
          principal.groupId,
          disputeId,
          auditBy(request, principal.groupId, "dispute.accepted", disputeId),
        );
        return "Dispute accepted. The payment is dispute lost.";
      });
    },
  );
};

const isOpen = (status: string) => status === "needs_response" || status === "under_review";

/** Runs a dispute call and says how it went on the dispute's page. */
async function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  disputeId: string,
  call: () => Promise<string>,
) {
  try {
    setFlash(request, { kind: "ok", text: await call() });
  } catch (error) {
    // What the merchant can act on is shown on the page; not-found and outages answer as usual.
    if (!(error instanceof DomainError) || error.code === "NOT_FOUND") throw error;
    setFlash(request, { kind: "error", text: error.message });
  }
  return reply.redirect(`/dashboard/disputes/${disputeId}`, 303);
}

const forms = (reply: FastifyReply, disputeId: string) =>
  html`<h2>Answer</h2>
<form method="post" action="/dashboard/disputes/${disputeId}/evidence" class="card" id="evidence-form">${csrfField(reply)}
<p class="muted">Each text goes to the processor under its own heading, up to 20,000 characters. Save as often as you like; once submitted, nothing more can be added.</p>
${DISPUTE_EVIDENCE_FIELDS.map((field) => {
  const [label, hint] = EVIDENCE_LABELS[field];
  return html`<div><label for="evidence-${field}">${label}</label><textarea id="evidence-${field}" name="${field}" maxlength="20000" rows="3" placeholder="${hint}"></textarea></div>`;
})}
<p><label><input type="checkbox" name="submit" value="true"> Submit for review now</label></p>
<p><button type="submit">Send evidence</button></p></form>
<form method="post" action="/dashboard/disputes/${disputeId}/accept" class="card row" id="accept-form">${csrfField(reply)}
<p>Not worth contesting? Accepting gives the amount back to the cardholder and closes the dispute.</p>
<div><button type="submit" class="danger">Accept…</button></div></form>`;

const confirmSubmit = (reply: FastifyReply, disputeId: string, evidence: EvidenceInput) =>
  html`<form method="post" action="/dashboard/disputes/${disputeId}/evidence" class="card" id="submit-confirm">${csrfField(reply)}
<p role="alert"><strong>Submit the evidence?</strong> The processor sends it to the cardholder's bank, and nothing more can be added afterwards.</p>
${DISPUTE_EVIDENCE_FIELDS.flatMap((field) =>
  evidence[field] === undefined
    ? []
    : [
        html`<h3>${EVIDENCE_LABELS[field][0]}</h3><p class="evidence">${evidence[field]}</p><input type="hidden" name="${field}" value="${evidence[field]}">`,
      ],
)}
<input type="hidden" name="submit" value="true"><input type="hidden" name="confirm" value="true">
<p><button type="submit">Submit the evidence</button> <a href="/dashboard/disputes/${disputeId}">Cancel</a></p></form>`;

export default disputePages;
