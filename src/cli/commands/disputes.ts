// `checkout disputes`: the group's disputes at any processor, through the typed client (merchant keys).
import type { Dispute, DisputeEvidenceInput, DisputeStatus } from "@checkout-service/client";
import type { Command } from "commander";
import { money } from "../../platform/format/money.ts";
import { utcToTheSecond } from "../../platform/format/time.ts";
import { asMerchant, show, wholeNumber } from "../context.ts";
import { facts, table } from "../output.ts";

const amountOf = (dispute: Dispute) => money(dispute.amount, dispute.currency);
const dueOf = (dispute: Dispute) => (dispute.evidenceDueBy ? utcToTheSecond(dispute.evidenceDueBy) : "—");

const disputeFacts = (dispute: Dispute) =>
  facts([
    ["Dispute ID", dispute.disputeId],
    ["Payment", dispute.transactionId],
    ["Processor", `${dispute.processor} (${dispute.processorDisputeId})`],
    ["Amount", amountOf(dispute)],
    ["Reason", dispute.reason],
    ["Status", dispute.status],
    ["Evidence due by", dueOf(dispute)],
    ["Evidence submitted", dispute.evidenceSubmittedAt ? utcToTheSecond(dispute.evidenceSubmittedAt) : "—"],
    ["Opened", utcToTheSecond(dispute.createdAt)],
  ]);

/** Each evidence option and the field it fills. */
const EVIDENCE_OPTIONS = [
  ["--product-description <text>", "productDescription", "what was sold"],
  ["--customer-communication <text>", "customerCommunication", "what the customer wrote"],
  ["--refund-policy <text>", "refundPolicy", "the refund policy the customer was shown"],
  ["--service-date <text>", "serviceDate", "when the service was given"],
  ["--shipping-tracking <text>", "shippingTracking", "the shipment's tracking number"],
  ["--text <text>", "uncategorizedText", "anything else"],
] as const;

export function disputeCommands(program: Command): void {
  const disputes = program
    .command("disputes")
    .description(
      "your disputes at any processor: evidence before the deadline, or acceptance (merchant keys)",
    );
  disputes
    .command("list")
    .description("open disputes soonest deadline first, then closed ones")
    .option("--status <status>", "needs_response, under_review, won, lost or accepted")
    .option("--limit <n>", "at most this many (1 to 100)", wholeNumber("--limit"))
    .option("--after <cursor>", "the nextCursor of the previous page")
    .action(async (options: { status?: string; limit?: number; after?: string }, command: Command) => {
      const page = await asMerchant(command, (checkout) =>
        checkout.disputes.list({
          ...(options.status !== undefined && { status: options.status as DisputeStatus }),
          ...(options.limit !== undefined && { limit: options.limit }),
          ...(options.after !== undefined && { after: options.after }),
        }),
      );
      const rows = page.disputes.map((dispute) => [
        dispute.disputeId,
        dispute.status,
        dueOf(dispute),
        amountOf(dispute),
        dispute.reason,
        dispute.processor,
      ]);
      const more = page.nextCursor ? `\n\nMore: add --after ${page.nextCursor}` : "";
      show(
        command,
        page,
        rows.length
          ? table(["DISPUTE ID", "STATUS", "DUE BY", "AMOUNT", "REASON", "PROCESSOR"], rows) + more
          : "No disputes.",
      );
    });
  disputes
    .command("get")
    .description("one dispute")
    .argument("<disputeId>")
    .action(async (disputeId: string, _options, command: Command) => {
      const dispute = await asMerchant(command, (checkout) => checkout.disputes.get(disputeId));
      show(command, dispute, disputeFacts(dispute));
    });
  const evidence = disputes
    .command("evidence")
    .description("send evidence to the processor; --submit submits everything sent for review")
    .argument("<disputeId>");
  for (const [flag, , description] of EVIDENCE_OPTIONS) evidence.option(flag, description);
  evidence
    .option("--submit", "submit the evidence: it can no longer be changed")
    .action(
      async (disputeId: string, options: Record<string, string | boolean | undefined>, command: Command) => {
        const input: DisputeEvidenceInput = {};
        for (const [flag, field] of EVIDENCE_OPTIONS) {
          const value = options[commandKey(flag)];
          if (typeof value === "string") input[field] = value;
        }
        if (options.submit === true) input.submit = true;
        const dispute = await asMerchant(command, (checkout) => checkout.disputes.evidence(disputeId, input));
        show(command, dispute, disputeFacts(dispute));
      },
    );
  disputes
    .command("accept")
    .description("concede the dispute: the payment becomes dispute_lost")
    .argument("<disputeId>")
    .action(async (disputeId: string, _options, command: Command) => {
      const dispute = await asMerchant(command, (checkout) => checkout.disputes.accept(disputeId));
      show(command, dispute, `Dispute ${disputeId} accepted; the payment is dispute_lost.`);
    });
}

/** Commander's key of an option: `--product-description <text>` is `productDescription`. */
const commandKey = (flag: string) =>
  (flag.split(" ")[0] ?? "")
    .replace(/^--/, "")
    .replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
