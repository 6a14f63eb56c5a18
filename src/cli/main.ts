import { userInfo } from "node:os";
import { Argument, Command, InvalidArgumentError, Option } from "commander";
import { routesFromText } from "../payments/routing/text.ts";
import { ApiClient, CliError } from "./api-client.ts";
import { listen, listenStatePath, loadListenState } from "./listen.ts";
import { print } from "./output.ts";

/** Where the service is when --url is not given: PUBLIC_URL, else localhost on PORT (3000). */
const defaultUrl = () => process.env.PUBLIC_URL || `http://localhost:${process.env.PORT || "3000"}`;

interface GlobalOptions {
  url: string;
  json: boolean;
  token?: string;
  publicKey?: string;
  secretKey?: string;
}

const wholeNumber = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${what} takes a whole number`);
  return Number(value);
};
const isoTime = (value: string) => {
  if (Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError("takes an ISO 8601 time, e.g. 2026-11-24T09:00:00Z");
  return value;
};
const collect = (value: string, previous: string[] = []) => [...previous, value];
const path = (...parts: string[]) => parts.map(encodeURIComponent).join("/");

const program = new Command("checkout")
  .description("Operate a checkout service: run it, administer it, and develop against it.")
  .addOption(
    new Option("--url <url>", "the service's address").default(
      defaultUrl(),
      "$PUBLIC_URL, else http://localhost:$PORT",
    ),
  )
  .option("--json", "print the raw JSON answer", false)
  .option("--token <token>", "admin token for admin commands (default $ADMIN_TOKEN)")
  .option("--public-key <key>", "merchant public key for merchant commands (default $PUBLIC_KEY)")
  .option("--secret-key <key>", "merchant secret key for merchant commands (default $SECRET_KEY)")
  .addHelpText(
    "after",
    `
Examples:
  checkout payments list --status succeeded --limit 5      (merchant keys: $PUBLIC_KEY, $SECRET_KEY)
  checkout listen --forward-to http://localhost:4242/webhooks
  checkout trigger payment.completed
  checkout groups create --name "My shop" --site Main=https://pay.myshop.example   (admin: $ADMIN_TOKEN)

Every command has --help, e.g. checkout payments refund --help.`,
  )
  .showHelpAfterError("(run with --help for usage)")
  .showSuggestionAfterError();

const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();
const out = (command: Command) => (data: unknown) => print(data, globals(command).json);

function admin(command: Command): ApiClient {
  const { url, token = process.env.ADMIN_TOKEN } = globals(command);
  if (!token) throw new CliError("an admin token is required: --token or $ADMIN_TOKEN");
  return ApiClient.admin(url, token);
}

function merchantKeys(command: Command): { publicKey: string; secretKey: string } {
  const options = globals(command);
  const publicKey = options.publicKey ?? process.env.PUBLIC_KEY;
  const secretKey = options.secretKey ?? process.env.SECRET_KEY;
  if (!publicKey || !secretKey) {
    throw new CliError(
      "merchant keys are required: --public-key and --secret-key, or $PUBLIC_KEY and $SECRET_KEY",
    );
  }
  return { publicKey, secretKey };
}

function merchant(command: Command): ApiClient {
  const { publicKey, secretKey } = merchantKeys(command);
  return ApiClient.merchant(globals(command).url, publicKey, secretKey);
}

// --- Running the service ---------------------------------------------------------------------

program
  .command("start")
  .description("run the service (the same as npm start)")
  .action(async () => {
    await import("../main.ts");
  });

program
  .command("migrate")
  .description("apply the database migrations (DATABASE_URL or DATA_DIR) and exit")
  .action(async (_options, command: Command) => {
    const [{ loadConfig }, { openDatabase }, { migrate }, { securePrivateDataDir }] = await Promise.all([
      import("../config.ts"),
      import("../db/open.ts"),
      import("../db/migrate.ts"),
      import("../db/data-dir.ts"),
    ]);
    const config = loadConfig();
    securePrivateDataDir(config.dataDir);
    const db = await openDatabase(config);
    try {
      const applied = await migrate(db);
      out(command)(applied.length > 0 ? { applied } : { applied: [], message: "database is up to date" });
    } finally {
      await db.close();
    }
  });

program
  .command("admin")
  .description("the admin token")
  .command("reset-token")
  .description("issue a new admin token; run it where DATABASE_URL/DATA_DIR reach the database")
  .action(async (_options, command: Command) => {
    const [{ loadConfig }, { openDatabase }, { migrate }, { resetAdminToken }, { securePrivateDataDir }] =
      await Promise.all([
        import("../config.ts"),
        import("../db/open.ts"),
        import("../db/migrate.ts"),
        import("../merchants/admin-token.ts"),
        import("../db/data-dir.ts"),
      ]);
    const config = loadConfig();
    securePrivateDataDir(config.dataDir);
    const db = await openDatabase(config);
    try {
      await migrate(db);
      // Run on the database's machine, by whoever can read its settings: named as that user.
      const token = await resetAdminToken(db, `cli:${userInfo().username}`);
      if (config.adminToken) {
        process.stderr.write(
          "checkout: note: ADMIN_TOKEN is set here; services started with it keep using it\n",
        );
      }
      out(command)({
        adminToken: token,
        message: "every running instance uses this token from now on; the old one is refused",
      });
    } finally {
      await db.close();
    }
  });

program
  .command("sandbox")
  .description(
    "run the sandbox processors (Stripe's and Square's) alone on SANDBOX_PORT, with the installation's " +
      "sandbox keys (from DATABASE_URL/DATA_DIR, or STRIPE_*/SQUARE_* when set); events go to PUBLIC_URL",
  )
  .action(async (_options, command: Command) => {
    const [
      { loadConfig },
      { openDatabase },
      { migrate },
      { securePrivateDataDir },
      { secretBoxFor },
      processors,
    ] = await Promise.all([
      import("../config.ts"),
      import("../db/open.ts"),
      import("../db/migrate.ts"),
      import("../db/data-dir.ts"),
      import("../crypto/keys.ts"),
      import("../processors.ts"),
    ]);
    const config = loadConfig();
    securePrivateDataDir(config.dataDir);
    const db = await openDatabase(config);
    await migrate(db);
    const accounts = await processors.sandboxAccounts(config, db, secretBoxFor(config).box);
    const sandbox = await processors.createSandboxFor(config, accounts, db, () => config.publicUrl);
    await sandbox.app.listen({ port: config.sandboxPort, host: config.sandboxHost });
    out(command)({
      sandboxUrl: `http://${config.sandboxHost}:${config.sandboxPort}`,
      eventsTo: `${config.publicUrl}/processor/webhooks/{stripe,square}`,
      message: "the service must use the same database (or the same STRIPE_*/SQUARE_* keys) to talk to it",
    });
    const stop = () =>
      void sandbox.app
        .close()
        .then(() => db.close())
        .then(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });

// --- Admin API (--token) -----------------------------------------------------------------------

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
      await admin(command).post("/admin/v1/groups", { name: options.name, ...(safeSites && { safeSites }) }),
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
  .description("show a group's processor routes, or set them with --set (an empty --set: the default route)")
  .argument("<groupId>")
  .option(
    "--set <routes>",
    "routes separated by ';', each [CURRENCY:]PROCESSOR,PROCESSOR, e.g. 'usd:square,stripe;stripe'",
  )
  .action(async (groupId: string, options: { set?: string }, command: Command) => {
    const api = admin(command);
    const url = `/admin/v1/groups/${path(groupId)}/routing`;
    if (options.set === undefined) return out(command)(await api.get(url));
    out(command)(await api.put(url, { routes: routesFromText(options.set) }));
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
    out(command)(await admin(command).get("/admin/v1/reconciliation")),
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
    out(command)(await admin(command).get("/admin/v1/deliveries/failed")),
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
    new Option("--role <role>", "their role").choices(["owner", "developer", "viewer"]).makeOptionMandatory(),
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

// --- Merchant API (--public-key / --secret-key) -----------------------------------------------

const payments = program.command("payments").description("your payments (merchant keys)");
payments
  .command("list")
  .description("payments, newest first, a page at a time")
  .addOption(
    new Option("--status <status>", "only this status").choices([
      "pending",
      "processing",
      "succeeded",
      "failed",
      "cancelled",
      "expired",
      "refunded",
      "partially_refunded",
      "disputed",
      "dispute_won",
      "dispute_lost",
    ]),
  )
  .option("--from <time>", "created at or after (ISO 8601)", isoTime)
  .option("--to <time>", "created before (ISO 8601)", isoTime)
  .option("--limit <n>", "1 to 100", wholeNumber("--limit"))
  .option("--after <cursor>", "the nextCursor of the previous page")
  .action(async (options: Record<string, string | number | undefined>, command: Command) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options))
      if (value !== undefined) query.set(name, String(value));
    out(command)(await merchant(command).get(`/api/v1/payments${query.size > 0 ? `?${query}` : ""}`));
  });
payments
  .command("get")
  .description("one payment")
  .argument("<transactionId>")
  .action(async (id: string, _options, command: Command) =>
    out(command)(await merchant(command).get(`/api/v1/payments/${path(id)}`)),
  );
payments
  .command("cancel")
  .description("cancel a pending or processing payment")
  .argument("<transactionId>")
  .action(async (id: string, _options, command: Command) =>
    out(command)(await merchant(command).delete(`/api/v1/payments/${path(id)}`)),
  );
payments
  .command("refund")
  .description("refund a payment in full, or --amount cents of it")
  .argument("<transactionId>")
  .option("--amount <cents>", "whole cents; all that remains when left out", wholeNumber("--amount"))
  .addOption(new Option("--reason <reason>").choices(["requested_by_customer", "duplicate", "fraudulent"]))
  .option("--idempotency-key <key>", "send it again with the same key to retry safely")
  .action(
    async (
      id: string,
      options: { amount?: number; reason?: string; idempotencyKey?: string },
      command: Command,
    ) =>
      out(command)(
        await merchant(command).post(
          `/api/v1/payments/${path(id)}/refunds`,
          {
            ...(options.amount !== undefined && { amount: options.amount }),
            ...(options.reason && { reason: options.reason }),
          },
          options.idempotencyKey,
        ),
      ),
  );

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
        api: merchant(command),
        publicKey,
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

program
  .command("trigger")
  .description("make the sandbox produce an event on a new payment of your group")
  .addArgument(
    new Argument("<event>", "the event").choices([
      "payment.completed",
      "payment.failed",
      "payment.expired",
      "payment.refunded",
      "payment.disputed",
    ]),
  )
  .action(async (event: string, _options, command: Command) => {
    const api = merchant(command);
    const answer = await api.post("/api/v1/sandbox/trigger", { event }).catch((error: unknown) => {
      if (error instanceof CliError && / 404 /.test(error.message)) {
        throw new CliError(
          `${api.baseUrl} does not run the sandbox processor: trigger works only with PROCESSOR=sandbox`,
        );
      }
      throw error;
    });
    out(command)(answer);
  });

/** Errors whose message says what to do: one line, no stack (the in-process commands' too). */
const EXPLAINED = new Set(["CliError", "ConfigError", "DataDirLockedError", "DatabaseUnavailableError"]);

program.parseAsync(process.argv).catch((error: unknown) => {
  const explained = error instanceof Error && EXPLAINED.has(error.name);
  process.stderr.write(
    `checkout: ${explained ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exit(1);
});
