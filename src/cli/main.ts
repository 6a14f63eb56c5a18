import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { openDatabase } from "../db/open.ts";
import { resetAdminToken } from "../merchants/admin-token.ts";
import { createSandbox } from "../sandbox/app.ts";
import { ApiClient } from "./api-client.ts";

const USAGE = `checkout — operate a checkout service

Service:
  checkout start                              run the service (same as npm start)
  checkout migrate                            apply database migrations and exit
  checkout admin reset-token                  issue a new admin token (run where DATABASE_URL/DATA_DIR reach the database)
  checkout sandbox                            run the sandbox processor alone on SANDBOX_PORT

Admin API client (--url, default $PUBLIC_URL or http://localhost:3000; --token, default $ADMIN_TOKEN):
  checkout groups create --name NAME [--site NAME=URL]...
  checkout groups get GROUP_ID
  checkout safe-sites add GROUP_ID --name NAME --site-url URL [--inactive]
  checkout safe-sites update SAFE_SITE_ID [--name NAME] [--site-url URL] [--active true|false]
  checkout keys create GROUP_ID
  checkout keys revoke PUBLIC_KEY
  checkout reconciliation                     the open reconciliation items (paid after cancel, drift, …)
  checkout reconcile --since ISO [--until ISO]
                                              compare payments changed then with the processor, repair what
                                              it proves, and print the run's figures when it has finished
  checkout deliveries failed                  webhook deliveries dropped after their last attempt
  checkout deliveries recover --since ISO [--until ISO] [--group GROUP_ID]
                                              send again events whose deliveries all failed then
  checkout users add --group GROUP_ID --email EMAIL --role owner|developer|viewer
                                              invite a dashboard user; prints the invite URL (single use, 72 h)
  checkout operators add EMAIL                invite an operator to the console; prints the invite URL
  checkout users reset-password EMAIL         a password reset link for a dashboard user (single use, 1 h)
  checkout operators reset-password EMAIL     the same for an operator

Merchant API client (--url; --public-key/--secret-key, default $PUBLIC_KEY/$SECRET_KEY):
  checkout payments refund TRANSACTION_ID [--amount CENTS] [--reason requested_by_customer|duplicate|fraudulent]
                                              [--idempotency-key KEY]
  checkout webhook-secret rotate GROUP_ID [--grace SECONDS]

Options: --json prints the raw JSON answer.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string" },
    token: { type: "string" },
    json: { type: "boolean", default: false },
    name: { type: "string" },
    site: { type: "string", multiple: true },
    "site-url": { type: "string" },
    inactive: { type: "boolean", default: false },
    active: { type: "string" },
    grace: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    group: { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    amount: { type: "string" },
    reason: { type: "string" },
    "public-key": { type: "string" },
    "secret-key": { type: "string" },
    "idempotency-key": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`checkout: ${message}\n`);
  process.exit(1);
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === "") fail(`${what} is required (see checkout --help)`);
  return value;
}

function print(data: unknown) {
  if (values.json) {
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  const walk = (value: unknown, indent: string) => {
    if (Array.isArray(value)) {
      if (value.length === 0) lines.push(`${indent}(none)`);
      value.forEach((item, index) => {
        lines.push(`${indent}- #${index + 1}`);
        walk(item, `${indent}  `);
      });
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (item && typeof item === "object") {
          lines.push(`${indent}${key}:`);
          walk(item, `${indent}  `);
        } else {
          lines.push(`${indent}${key}: ${String(item)}`);
        }
      }
    } else {
      lines.push(`${indent}${String(value)}`);
    }
  };
  walk(data, "");
  process.stdout.write(`${lines.join("\n")}\n`);
}

function parseSite(spec: string) {
  const separator = spec.indexOf("=");
  if (separator < 1) fail(`--site takes NAME=URL, got "${spec}"`);
  return { name: spec.slice(0, separator), url: spec.slice(separator + 1) };
}

async function run() {
  const [command, sub, argument] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === "start") {
    await import("../main.ts");
    return;
  }
  if (command === "migrate") {
    const db = await openDatabase(loadConfig());
    try {
      const applied = await migrate(db);
      print(applied.length > 0 ? { applied } : { applied: [], message: "database is up to date" });
    } finally {
      await db.close();
    }
    return;
  }
  if (command === "admin" && sub === "reset-token") {
    const config = loadConfig();
    const db = await openDatabase(config);
    try {
      await migrate(db);
      const token = await resetAdminToken(db);
      if (config.adminToken) {
        process.stderr.write(
          "checkout: note: ADMIN_TOKEN is set here; services started with it keep using it\n",
        );
      }
      print({
        adminToken: token,
        message: "every running instance uses this token from now on; the old one is refused",
      });
    } finally {
      await db.close();
    }
    return;
  }
  if (command === "sandbox") {
    const config = loadConfig();
    // Alone, the sandbox shares its keys with the service through the environment.
    const webhookSecret = config.stripeWebhookSecret ?? fail("checkout sandbox needs STRIPE_WEBHOOK_SECRET");
    const apiKey = config.stripeSecretKey ?? fail("checkout sandbox needs STRIPE_SECRET_KEY");
    const sandbox = await createSandbox({
      eventsUrl: () => `${config.publicUrl}/processor/webhooks/stripe`,
      webhookSecret,
      apiKey,
      logLevel: config.logLevel,
    });
    await sandbox.app.listen({ port: config.sandboxPort, host: config.sandboxHost });
    const stop = () => void sandbox.app.close().then(() => process.exit(0));
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    return;
  }

  const baseUrl = values.url ?? process.env.PUBLIC_URL ?? "http://localhost:3000";
  if (command === "payments" && sub === "refund") {
    // A merchant action: it takes the merchant's keys, not the admin token.
    const merchant = ApiClient.merchant(
      baseUrl,
      values["public-key"] ?? process.env.PUBLIC_KEY ?? fail("--public-key or PUBLIC_KEY is required"),
      values["secret-key"] ?? process.env.SECRET_KEY ?? fail("--secret-key or SECRET_KEY is required"),
    );
    const amount = values.amount === undefined ? undefined : Number(values.amount);
    if (amount !== undefined && !Number.isInteger(amount)) fail("--amount takes whole cents");
    return print(
      await merchant.post(
        `/api/v1/payments/${encodeURIComponent(required(argument, "TRANSACTION_ID"))}/refunds`,
        { ...(amount !== undefined && { amount }), ...(values.reason && { reason: values.reason }) },
        values["idempotency-key"],
      ),
    );
  }
  const token =
    values.token ?? process.env.ADMIN_TOKEN ?? fail("an admin token is required: --token or ADMIN_TOKEN");
  const admin = ApiClient.admin(baseUrl, token);
  const route = `${command} ${sub ?? ""}`.trim();
  switch (route) {
    case "groups create":
      return print(
        await admin.post("/admin/v1/groups", {
          name: required(values.name, "--name"),
          ...(values.site && { safeSites: values.site.map(parseSite) }),
        }),
      );
    case "groups get":
      return print(await admin.get(`/admin/v1/groups/${encodeURIComponent(required(argument, "GROUP_ID"))}`));
    case "safe-sites add":
      return print(
        await admin.post(
          `/admin/v1/groups/${encodeURIComponent(required(argument, "GROUP_ID"))}/safe-sites`,
          {
            name: required(values.name, "--name"),
            url: required(values["site-url"], "--site-url"),
            isActive: !values.inactive,
          },
        ),
      );
    case "safe-sites update": {
      if (values.active !== undefined && values.active !== "true" && values.active !== "false") {
        fail("--active takes true or false");
      }
      return print(
        await admin.patch(`/admin/v1/safe-sites/${encodeURIComponent(required(argument, "SAFE_SITE_ID"))}`, {
          ...(values.name && { name: values.name }),
          ...(values["site-url"] && { url: values["site-url"] }),
          ...(values.active !== undefined && { isActive: values.active === "true" }),
        }),
      );
    }
    case "keys create":
      return print(
        await admin.post(`/admin/v1/groups/${encodeURIComponent(required(argument, "GROUP_ID"))}/keys`),
      );
    case "keys revoke":
      return print(
        await admin.delete(`/admin/v1/keys/${encodeURIComponent(required(argument, "PUBLIC_KEY"))}`),
      );
    case "reconciliation":
      return print(await admin.get("/admin/v1/reconciliation"));
    case "reconcile": {
      const started = (await admin.post("/admin/v1/reconciliation/runs", {
        since: required(values.since, "--since"),
        ...(values.until && { until: values.until }),
      })) as { runId: string };
      for (;;) {
        const run = (await admin.get(`/admin/v1/reconciliation/runs/${started.runId}`)) as { status: string };
        if (run.status === "finished") return print(run);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    case "deliveries failed":
      return print(await admin.get("/admin/v1/deliveries/failed"));
    case "deliveries recover":
      return print(
        await admin.post("/admin/v1/deliveries/recover", {
          since: required(values.since, "--since"),
          ...(values.until && { until: values.until }),
          ...(values.group && { groupId: values.group }),
        }),
      );
    case "users add":
      return print(
        await admin.post(`/admin/v1/groups/${encodeURIComponent(required(values.group, "--group"))}/users`, {
          email: required(values.email, "--email"),
          role: required(values.role, "--role"),
        }),
      );
    case "operators add":
      return print(await admin.post("/admin/v1/operators", { email: required(argument, "EMAIL") }));
    case "users reset-password":
    case "operators reset-password":
      return print(
        await admin.post("/admin/v1/accounts/password-resets", {
          email: required(argument, "EMAIL"),
          audience: command === "users" ? "dashboard" : "operator",
        }),
      );
    case "webhook-secret rotate": {
      const grace = values.grace === undefined ? undefined : Number(values.grace);
      if (grace !== undefined && !Number.isInteger(grace)) fail("--grace takes whole seconds");
      return print(
        await admin.post(
          `/admin/v1/groups/${encodeURIComponent(required(argument, "GROUP_ID"))}/webhook-secret/rotate`,
          grace === undefined ? {} : { graceSeconds: grace },
        ),
      );
    }
    default:
      fail(`unknown command "${route}" (see checkout --help)`);
  }
}

run().catch((error: unknown) => fail((error as Error).message));
