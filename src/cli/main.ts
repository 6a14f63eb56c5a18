// `checkout`: the service's command line. Commands by audience, each group in its own file:
// running the service, the operator's admin API, the merchant's API, and development helpers.
import { Command, Option } from "commander";
import { defaultUrl } from "./api-client.ts";
import { adminCommands } from "./commands/admin.ts";
import { developmentCommands } from "./commands/development.ts";
import { disputeCommands } from "./commands/disputes.ts";
import { endpointCommands } from "./commands/endpoints.ts";
import { merchantCommands } from "./commands/merchant.ts";
import { serviceCommands } from "./commands/service.ts";
import { serviceUrl } from "./context.ts";

const program = new Command("checkout")
  .description("Operate a checkout service: run it, administer it, and develop against it.")
  .addOption(
    new Option("--url <url>", "the service's address")
      .default(defaultUrl(), "$CHECKOUT_URL, else $PUBLIC_URL, else http://localhost:$PORT")
      .argParser(serviceUrl),
  )
  .option("--json", "print the raw JSON answer", false)
  .option("--token <token>", "admin token for admin commands (default $ADMIN_TOKEN)")
  .option("--public-key <key>", "merchant public key for merchant commands (default $PUBLIC_KEY)")
  .option("--secret-key <key>", "merchant secret key for merchant commands (default $SECRET_KEY)")
  // Each command's help lists these too: `checkout payments list --help` shows --url and the keys.
  .configureHelp({ showGlobalOptions: true })
  .addHelpText(
    "after",
    `
Examples, from the service's directory (installed with npm i -g, checkout alone):
  npm run checkout -- payments list --status succeeded --limit 5   (merchant keys: $PUBLIC_KEY, $SECRET_KEY)
  npm run checkout -- listen --forward-to http://localhost:4242/webhooks
  npm run checkout -- trigger payment.completed
  npm run checkout -- groups create --name "My shop" --site Main=https://pay.myshop.example   (admin: $ADMIN_TOKEN)

Every command has --help, e.g. npm run checkout -- payments refund --help.`,
  )
  .showHelpAfterError("(run with --help for usage)")
  .showSuggestionAfterError();

program.commandsGroup("Running the service (on its machine, against its database):");
serviceCommands(program);
program.commandsGroup("Operating it (admin token):");
adminCommands(program);
program.commandsGroup("Your payments (merchant keys):");
merchantCommands(program);
endpointCommands(program);
disputeCommands(program);
program.commandsGroup("Developing against it:");
developmentCommands(program);

/**
 * Errors whose message says what to do: one line, no stack (the in-process commands' too), unless
 * DEBUG names checkout.
 */
const EXPLAINED = new Set(["CliError", "ConfigError", "DataDirLockedError", "DatabaseUnavailableError"]);
const debugging = /(^|,)\s*checkout\s*(,|$)/.test(process.env.DEBUG ?? "");

program.parseAsync(process.argv).catch((error: unknown) => {
  const explained = !debugging && error instanceof Error && EXPLAINED.has(error.name);
  process.stderr.write(
    `checkout: ${explained ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exit(1);
});
