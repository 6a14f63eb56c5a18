// The operator's commands: the admin API with the admin token (--token, default $ADMIN_TOKEN).
import { type Command, Option } from "commander";
import { ROUTES_EXAMPLE, routesFromText } from "../../payments/routing/text.ts";
import { CliError } from "../api-client.ts";
import { admin, globals, isoTime, out, wholeNumber } from "../context.ts";

interface GroupRouting {
  groupId: string;
  routes: { currency: string | null; processors: string[] }[];
  defaultRoute: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const path = (...parts: string[]) => parts.map(encodeURIComponent).join("/");

export function adminCommands(program: Command): void {
  const groups = program.command("groups").description("merchant groups (admin)");
  groups
    .command("list")
    .description("the groups, newest first")
    .option("--limit <n>", "at most this many (1 to 500)", wholeNumber("--limit"), 100)
    .action(async (options: { limit: number }, command: Command) =>
      out(command)(await admin(command).get(`/admin/v1/groups?limit=${options.limit}`)),
    );
  groups
    .command("create")
    .description("create a group with its first key pair; without --site, one SafeSite at PUBLIC_URL")
    .requiredOption("--name <name>", "the group's name")
    .option("--site <NAME=URL>", "a SafeSite (repeat for more)", collect)
    .action(async (options: { name: string; site?: string[] }, command: Command) => {
      const safeSites = options.site?.map((spec) => {
        const separator = spec.indexOf("=");
        if (separator < 1) throw new CliError(`--site takes NAME=URL, got "${spec}"`);
        return { name: spec.slice(0, separator), url: spec.slice(separator + 1) };
      });
      out(command)(
        await admin(command).post("/admin/v1/groups", {
          name: options.name,
          ...(safeSites && { safeSites }),
        }),
      );
    });
  groups
    .command("get")
    .description("one group with its SafeSites")
    .argument("<groupId>")
    .action(async (groupId: string, _options, command: Command) =>
      out(command)(await admin(command).get(`/admin/v1/groups/${path(groupId)}`)),
    );

  groups
    .command("routing")
    .description(
      "show a group's processor routes, or set them with --set (an empty --set: the default route)",
    )
    .argument("<groupId>")
    .option(
      "--set <routes>",
      `routes separated by ';', each [CURRENCY:]PROCESSOR,PROCESSOR, e.g. '${ROUTES_EXAMPLE}'`,
    )
    .action(async (groupId: string, options: { set?: string }, command: Command) => {
      const api = admin(command);
      const url = `/admin/v1/groups/${path(groupId)}/routing`;
      const routing = (
        options.set === undefined
          ? await api.get(url)
          : await api.put(url, { routes: routesFromText(options.set) })
      ) as GroupRouting;
      if (globals(command).json) return out(command)(routing);
      // A route without a currency is the one every other currency takes.
      const routes = routing.routes.map((route) => ({
        currency: route.currency ?? "any other",
        processors: route.processors.join(", "),
      }));
      const { defaultRoute, ...shown } = routing;
      const followed = `the default route: ${defaultRoute.join(", ")} (PROCESSOR's order)`;
      out(command)({ ...shown, routes: routes.length > 0 ? routes : followed });
    });

  const safeSites = program.command("safe-sites").description("the domains that host payment links (admin)");
  safeSites
    .command("add")
    .description("add a SafeSite to a group")
    .argument("<groupId>")
    .requiredOption("--name <name>", "its name")
    .requiredOption("--site-url <url>", "its https address")
    .option("--inactive", "add it switched off", false)
    .action(
      async (
        groupId: string,
        options: { name: string; siteUrl: string; inactive: boolean },
        command: Command,
      ) =>
        out(command)(
          await admin(command).post(`/admin/v1/groups/${path(groupId)}/safe-sites`, {
            name: options.name,
            url: options.siteUrl,
            isActive: !options.inactive,
          }),
        ),
    );
  safeSites
    .command("update")
    .description("rename, move, switch on or off a SafeSite")
    .argument("<safeSiteId>")
    .option("--name <name>", "a new name")
    .option("--site-url <url>", "a new address")
    .addOption(new Option("--active <bool>", "switch it on or off").choices(["true", "false"]))
    .action(
      async (
        safeSiteId: string,
        options: { name?: string; siteUrl?: string; active?: string },
        command: Command,
      ) =>
        out(command)(
          await admin(command).patch(`/admin/v1/safe-sites/${path(safeSiteId)}`, {
            ...(options.name && { name: options.name }),
            ...(options.siteUrl && { url: options.siteUrl }),
            ...(options.active !== undefined && { isActive: options.active === "true" }),
          }),
        ),
    );

  const keys = program.command("keys").description("merchant API key pairs (admin)");
  keys
    .command("create")
    .description("a new key pair for a group; the secret key is shown once")
    .argument("<groupId>")
    .action(async (groupId: string, _options, command: Command) =>
      out(command)(await admin(command).post(`/admin/v1/groups/${path(groupId)}/keys`)),
    );
  keys
    .command("revoke")
    .description("revoke a key pair at once")
    .argument("<publicKey>")
    .action(async (publicKey: string, _options, command: Command) =>
      out(command)(await admin(command).delete(`/admin/v1/keys/${path(publicKey)}`)),
    );

  program
    .command("reconciliation")
    .description("the open reconciliation items: paid after cancel, drift, … (admin)")
    .action(async (_options, command: Command) =>
      out(command, {
        columns: ["id", "kind", "transactionId", "amount", "status", "reason", "flaggedAt"],
        empty: "No open reconciliation items.",
      })(await admin(command).get("/admin/v1/reconciliation")),
    );

  program
    .command("reconcile")
    .description(
      "compare payments changed in a window with the processor, repair what it proves, print the run (admin)",
    )
    .requiredOption("--since <time>", "ISO 8601 start", isoTime)
    .option("--until <time>", "ISO 8601 end (default now)", isoTime)
    .action(async (options: { since: string; until?: string }, command: Command) => {
      const api = admin(command);
      const started = (await api.post("/admin/v1/reconciliation/runs", options)) as { runId: string };
      for (;;) {
        const run = (await api.get(`/admin/v1/reconciliation/runs/${path(started.runId)}`)) as {
          status: string;
        };
        if (run.status === "finished") return out(command)(run);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });

  const deliveries = program.command("deliveries").description("webhook deliveries (admin)");
  deliveries
    .command("failed")
    .description("deliveries dropped after their last attempt, newest first")
    .action(async (_options, command: Command) =>
      out(command, {
        columns: [
          "deliveryId",
          "event",
          "transactionId",
          "url",
          "attempts",
          "lastStatusCode",
          "lastError",
          "failedAt",
        ],
        empty: "No failed deliveries.",
      })(await admin(command).get("/admin/v1/deliveries/failed")),
    );
  deliveries
    .command("recover")
    .description("send again the events whose deliveries all failed in a window")
    .requiredOption("--since <time>", "ISO 8601 start", isoTime)
    .option("--until <time>", "ISO 8601 end (default now)", isoTime)
    .option("--group <groupId>", "only this group's")
    .action(async (options: { since: string; until?: string; group?: string }, command: Command) =>
      out(command)(
        await admin(command).post("/admin/v1/deliveries/recover", {
          since: options.since,
          ...(options.until && { until: options.until }),
          ...(options.group && { groupId: options.group }),
        }),
      ),
    );

  const users = program.command("users").description("dashboard users (admin)");
  users
    .command("add")
    .description("invite a dashboard user; prints the invite URL (single use, 72 h)")
    .requiredOption("--group <groupId>", "the group")
    .requiredOption("--email <email>", "their email")
    .addOption(
      new Option("--role <role>", "their role")
        .choices(["owner", "developer", "viewer"])
        .makeOptionMandatory(),
    )
    .action(async (options: { group: string; email: string; role: string }, command: Command) =>
      out(command)(
        await admin(command).post(`/admin/v1/groups/${path(options.group)}/users`, {
          email: options.email,
          role: options.role,
        }),
      ),
    );
  const resetPassword =
    (audience: "dashboard" | "operator") => async (email: string, _options: unknown, command: Command) =>
      out(command)(await admin(command).post("/admin/v1/accounts/password-resets", { email, audience }));
  users
    .command("reset-password")
    .description("a password reset link for a dashboard user (single use, 1 h)")
    .argument("<email>")
    .action(resetPassword("dashboard"));

  const operators = program.command("operators").description("console operators (admin)");
  operators
    .command("add")
    .description("invite an operator to the console; prints the invite URL")
    .argument("<email>")
    .action(async (email: string, _options, command: Command) =>
      out(command)(await admin(command).post("/admin/v1/operators", { email })),
    );
  operators
    .command("reset-password")
    .description("a password reset link for an operator (single use, 1 h)")
    .argument("<email>")
    .action(resetPassword("operator"));

  program
    .command("webhook-secret")
    .description("a group's webhook signing secret (admin)")
    .command("rotate")
    .description("issue a new signing secret; the old one keeps signing for the grace period")
    .argument("<groupId>")
    .option("--grace <seconds>", "how long the old secret keeps signing", wholeNumber("--grace"))
    .action(async (groupId: string, options: { grace?: number }, command: Command) =>
      out(command)(
        await admin(command).post(
          `/admin/v1/groups/${path(groupId)}/webhook-secret/rotate`,
          options.grace === undefined ? {} : { graceSeconds: options.grace },
        ),
      ),
    );
}
