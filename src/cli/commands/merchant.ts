// The merchant's commands, through the typed client merchants use (@checkout-service/client), with
// the merchant keys (--public-key/--secret-key, default $PUBLIC_KEY/$SECRET_KEY).
import type { ListPaymentsParams, Payment, PaymentPage, RefundInput } from "@checkout-service/client";
import { type Command, Option } from "commander";
import { PAYMENT_STATUSES } from "../../payments/core/status.ts";
import { money } from "../../platform/format/money.ts";
import { utcToTheSecond } from "../../platform/format/time.ts";
import { CliError } from "../api-client.ts";
import {
  asMerchant,
  cents,
  globals,
  isoTime,
  merchantClient,
  merchantKeys,
  out,
  show,
  wholeNumber,
} from "../context.ts";
import { listen, listenStatePath, loadListenState } from "../listen.ts";
import { facts, table } from "../output.ts";

const when = (iso: string | null | undefined) => (iso ? utcToTheSecond(iso) : "—");

/** A page of payments as a table, amounts in their currency, then how to ask for the next page. */
function paymentTable(page: PaymentPage): string {
  if (page.payments.length === 0) return "No payments.";
  const rows = page.payments.map((payment) => [
    payment.id,
    payment.status,
    money(payment.amount, payment.currency),
    payment.amountRefunded ? money(payment.amountRefunded, payment.currency) : "",
    payment.customerEmail ?? "",
    payment.processor ?? "",
    when(payment.createdAt),
  ]);
  const more = page.nextCursor ? `\n\nMore: add --after ${page.nextCursor}` : "";
  return `${table(["TRANSACTION ID", "STATUS", "AMOUNT", "REFUNDED", "CUSTOMER", "PROCESSOR", "CREATED"], rows)}${more}`;
}

/** One payment, a fact a line. */
function paymentFacts(payment: Payment): string {
  const lines: [string, string][] = [
    ["Transaction ID", payment.id],
    ["Status", payment.status],
    ["Amount", money(payment.amount, payment.currency)],
    ["Refunded", money(payment.amountRefunded ?? 0, payment.currency)],
    ["Customer", payment.customerEmail ?? "—"],
    ["Description", payment.description ?? "—"],
    ["Processor", payment.processor ?? "—"],
    ["Created", when(payment.createdAt)],
    ["Completed", when(payment.completedAt)],
    ...Object.entries(payment.metadata ?? {}).map(([key, value]): [string, string] => [
      `metadata.${key}`,
      String(value),
    ]),
  ];
  return facts(lines);
}

export function merchantCommands(program: Command): void {
  const payments = program.command("payments").description("your payments (merchant keys)");
  payments
    .command("list")
    .description("payments, newest first, a page at a time")
    .addOption(new Option("--status <status>", "only this status").choices(PAYMENT_STATUSES))
    .option("--from <time>", "created at or after (ISO 8601)", isoTime)
    .option("--to <time>", "created before (ISO 8601)", isoTime)
    .option("--limit <n>", "1 to 100 (default 20)", wholeNumber("--limit"))
    .option("--after <cursor>", "the nextCursor of the previous page")
    .action(async (options: ListPaymentsParams, command: Command) => {
      const page = await asMerchant(command, (checkout) =>
        checkout.payments.list(options).then((first) => first),
      );
      show(command, page, paymentTable(page));
    });
  payments
    .command("get")
    .description("one payment")
    .argument("<transactionId>")
    .action(async (id: string, _options, command: Command) => {
      const payment = await asMerchant(command, (checkout) => checkout.payments.get(id));
      show(command, payment, paymentFacts(payment));
    });
  payments
    .command("cancel")
    .description("cancel a pending or processing payment")
    .argument("<transactionId>")
    .action(async (id: string, _options, command: Command) =>
      out(command)(await asMerchant(command, (checkout) => checkout.payments.cancel(id))),
    );
  payments
    .command("refund")
    .description("refund a payment in full, or --amount cents of it")
    .argument("<transactionId>")
    .option("--amount <cents>", "in cents (1250 for 12.50); all that remains when left out", cents)
    .addOption(new Option("--reason <reason>").choices(["requested_by_customer", "duplicate", "fraudulent"]))
    .option("--idempotency-key <key>", "send it again with the same key to retry safely")
    .action(
      async (
        id: string,
        options: { amount?: number; reason?: RefundInput["reason"]; idempotencyKey?: string },
        command: Command,
      ) => {
        const input: RefundInput = {
          ...(options.amount !== undefined && { amount: options.amount }),
          ...(options.reason && { reason: options.reason }),
        };
        const refund = await asMerchant(command, (checkout) =>
          checkout.refunds.create(
            id,
            input,
            options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {},
          ),
        );
        show(
          command,
          refund,
          `Refund ${refund.refundId}: ${money(refund.amount, refund.currency)}, ${refund.status}`,
        );
      },
    );

  program
    .command("customers")
    .description("your customers (merchant keys)")
    .command("erase")
    .description(
      "erase a customer (GDPR article 17): their e-mail, name, the description and metadata leave every payment of theirs",
    )
    .argument("<email>", "the customer's e-mail address, any case")
    .action(async (email: string, _options, command: Command) => {
      const { erased } = await asMerchant(command, (checkout) => checkout.customers.erase(email));
      show(
        command,
        { erased },
        erased.payments === 0
          ? "No payment of yours has this customer (or it was erased already)."
          : `Erased the customer from ${erased.payments} payment${erased.payments === 1 ? "" : "s"}. The processor's own records are its to erase.`,
      );
    });

  program
    .command("listen")
    .description(
      "follow your events and post each to a local URL, signed as a production webhook; resumes where it stopped",
    )
    .option("--forward-to <url>", "where to post each event, e.g. http://localhost:4242/webhooks")
    .option("--events <names>", "only these events, comma-separated (e.g. payment.completed,payment.failed)")
    .option("--print-secret", "print the whsec_ secret the forwarded posts are signed with, and exit", false)
    .action(
      async (options: { forwardTo?: string; events?: string; printSecret: boolean }, command: Command) => {
        const { publicKey } = merchantKeys(command);
        const statePath = listenStatePath(publicKey);
        if (options.printSecret) {
          process.stdout.write(`${loadListenState(statePath).secret}\n`);
          return;
        }
        if (!options.forwardTo) throw new CliError("--forward-to <url> is required (or --print-secret)");
        try {
          if (!/^https?:$/.test(new URL(options.forwardTo).protocol)) throw new Error();
        } catch {
          throw new CliError(`--forward-to takes an http(s) URL, got "${options.forwardTo}"`);
        }
        const stop = new AbortController();
        process.once("SIGINT", () => stop.abort());
        process.once("SIGTERM", () => stop.abort());
        await listen({
          checkout: merchantClient(command),
          url: globals(command).url,
          forwardTo: options.forwardTo,
          events: options.events
            ?.split(",")
            .map((name) => name.trim())
            .filter(Boolean),
          statePath,
          signal: stop.signal,
          json: globals(command).json,
          write: (line) => process.stdout.write(`${line}\n`),
        });
      },
    );
}
