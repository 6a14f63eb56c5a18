// Commands that run on the service's own machine, against its database: start it, migrate it,
// replace the admin token. They talk to the database directly, not to a running service.
import { userInfo } from "node:os";
import type { Command } from "commander";
import { out } from "../context.ts";

export function serviceCommands(program: Command): void {
  program
    .command("start")
    .description("run the service (the same as npm start)")
    .action(async () => {
      await import("../../main.ts");
    });

  program
    .command("migrate")
    .description("apply the database migrations (DATABASE_URL or DATA_DIR) and exit")
    .action(async (_options, command: Command) => {
      const [{ loadConfig }, { openDatabase }, { migrate }, { securePrivateDataDir }] = await Promise.all([
        import("../../config/config.ts"),
        import("../../platform/db/open.ts"),
        import("../../platform/db/migrate.ts"),
        import("../../platform/db/data-dir.ts"),
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
          import("../../config/config.ts"),
          import("../../platform/db/open.ts"),
          import("../../platform/db/migrate.ts"),
          import("../../merchants/admin-token.ts"),
          import("../../platform/db/data-dir.ts"),
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
}
