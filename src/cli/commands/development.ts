// Commands for developing against the service: the sandbox processor run alone, and events made
// on demand.
import type { SandboxEvent } from "@checkout-service/client";
import { Argument, type Command } from "commander";
import { CliError } from "../api-client.ts";
import { asMerchant, globals, out } from "../context.ts";

export function developmentCommands(program: Command): void {
  program
    .command("sandbox")
    .description(
      "run the sandbox's emulated processors alone on SANDBOX_PORT, with the installation's sandbox keys " +
        "(from DATABASE_URL/DATA_DIR, or each processor's own settings when set); events go to PUBLIC_URL",
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
        import("../../config/config.ts"),
        import("../../platform/db/open.ts"),
        import("../../platform/db/migrate.ts"),
        import("../../platform/db/data-dir.ts"),
        import("../../platform/crypto/keys.ts"),
        import("../../server/processors.ts"),
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
        eventsTo: `${config.publicUrl}/processor/webhooks/{${Object.keys(accounts).join(",")}}`,
        message: "the service must use the same database (or the same processor keys) to talk to it",
      });
      const stop = () =>
        void sandbox.app
          .close()
          .then(() => db.close())
          .then(() => process.exit(0));
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });

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
    .action(async (event: SandboxEvent, _options, command: Command) => {
      const answer = await asMerchant(command, (checkout) => checkout.sandbox.trigger(event)).catch(
        (error: unknown) => {
          if (error instanceof CliError && /^404 /.test(error.message)) {
            throw new CliError(
              `${globals(command).url} does not run the sandbox processor: trigger works only with PROCESSOR=sandbox`,
            );
          }
          throw error;
        },
      );
      out(command)(answer);
    });
}
