// `checkout endpoints`: the group's webhook endpoints, through the typed client (merchant keys).
import type { WebhookEndpoint, WebhookEndpointChange } from "@checkout-service/client";
import type { Command } from "commander";
import { utcToTheSecond } from "../../platform/format/time.ts";
import { asMerchant, show, wholeNumber } from "../context.ts";
import { facts, table } from "../output.ts";

const stateOf = (endpoint: WebhookEndpoint) =>
  endpoint.enabled ? "enabled" : `disabled (${endpoint.disabledReason ?? "disabled"})`;

const endpointFacts = (endpoint: WebhookEndpoint & { secret?: string }) =>
  facts([
    ["Endpoint ID", endpoint.endpointId],
    ["URL", endpoint.url],
    ["Events", endpoint.events.join(", ")],
    ["Description", endpoint.description ?? "—"],
    ["State", stateOf(endpoint)],
    ["Created", utcToTheSecond(endpoint.createdAt)],
    ...(endpoint.secret ? [["Secret (shown once)", endpoint.secret] as [string, string]] : []),
  ]);

/** --events a,b as the list the API takes. */
const eventList = (value: string) =>
  value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);

export function endpointCommands(program: Command): void {
  const endpoints = program
    .command("endpoints")
    .description("your webhook endpoints: each with its events and its own secret (merchant keys)");
  endpoints
    .command("list")
    .description("the group's endpoints")
    .action(async (_options, command: Command) => {
      const { endpoints: all } = await asMerchant(command, (checkout) => checkout.endpoints.list());
      const rows = all.map((endpoint) => [
        endpoint.endpointId,
        endpoint.url,
        endpoint.events.join(","),
        stateOf(endpoint),
      ]);
      show(
        command,
        { endpoints: all },
        all.length ? table(["ENDPOINT ID", "URL", "EVENTS", "STATE"], rows) : "No endpoints.",
      );
    });
  endpoints
    .command("create")
    .description("add an endpoint; its secret is shown this once")
    .argument("<url>")
    .option("--events <names>", "comma-separated event names (default: all)", eventList)
    .option("--description <text>")
    .action(async (url: string, options: { events?: string[]; description?: string }, command: Command) => {
      const made = await asMerchant(command, (checkout) =>
        checkout.endpoints.create({
          url,
          ...(options.events && { events: options.events as WebhookEndpoint["events"] }),
          ...(options.description !== undefined && { description: options.description }),
        }),
      );
      show(command, made, endpointFacts(made));
    });
  endpoints
    .command("update")
    .description("change an endpoint's URL, events or description, or --enable/--disable it")
    .argument("<endpointId>")
    .option("--url <url>")
    .option("--events <names>", "comma-separated event names", eventList)
    .option("--description <text>")
    .option("--enable", "deliver to it again (nothing old is sent by itself)")
    .option("--disable", "stop delivering to it")
    .action(
      async (
        endpointId: string,
        options: {
          url?: string;
          events?: string[];
          description?: string;
          enable?: boolean;
          disable?: boolean;
        },
        command: Command,
      ) => {
        const change: WebhookEndpointChange = {
          ...(options.url !== undefined && { url: options.url }),
          ...(options.events && { events: options.events as WebhookEndpoint["events"] }),
          ...(options.description !== undefined && { description: options.description }),
          ...(options.enable && { enabled: true }),
          ...(options.disable && { enabled: false }),
        };
        const changed = await asMerchant(command, (checkout) =>
          checkout.endpoints.update(endpointId, change),
        );
        show(command, changed, endpointFacts(changed));
      },
    );
  endpoints
    .command("delete")
    .description("delete an endpoint; its deliveries not yet made are given up")
    .argument("<endpointId>")
    .action(async (endpointId: string, _options, command: Command) => {
      const gone = await asMerchant(command, (checkout) => checkout.endpoints.delete(endpointId));
      show(command, gone, `Endpoint ${endpointId} deleted.`);
    });
  endpoints
    .command("rotate")
    .description("a new signing secret, shown this once; the old one signs beside it for --grace seconds")
    .argument("<endpointId>")
    .option(
      "--grace <seconds>",
      "how long the old secret goes on signing (default 86400)",
      wholeNumber("--grace"),
    )
    .action(async (endpointId: string, options: { grace?: number }, command: Command) => {
      const rotated = await asMerchant(command, (checkout) =>
        checkout.endpoints.rotateSecret(
          endpointId,
          options.grace === undefined ? {} : { graceSeconds: options.grace },
        ),
      );
      show(command, rotated, `New secret (shown once): ${rotated.secret}`);
    });
  endpoints
    .command("test")
    .description("send the endpoint one signed webhook.test event")
    .argument("<endpointId>")
    .action(async (endpointId: string, _options, command: Command) => {
      const sent = await asMerchant(command, (checkout) => checkout.endpoints.test(endpointId));
      show(command, sent, `webhook.test queued for ${endpointId}.`);
    });
}
