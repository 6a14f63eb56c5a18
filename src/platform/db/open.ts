import type { Config } from "../../config/config.ts";
import { type Database, postgresDatabase } from "./database.ts";
import { openEmbeddedDatabase } from "./embedded.ts";
import { withReadReplica } from "./read-replica.ts";

export async function openDatabase(
  config: Pick<
    Config,
    | "databaseUrl"
    | "dataDir"
    | "databaseStatementTimeoutMs"
    | "databaseLockTimeoutMs"
    | "databasePoolMode"
    | "databaseListenUrl"
    | "databaseReadUrl"
    | "databaseReadMaxLagMs"
  >,
): Promise<Database> {
  if (!config.databaseUrl) return openEmbeddedDatabase(config.dataDir);
  const options = {
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
    poolMode: config.databasePoolMode,
  };
  const primary = postgresDatabase(config.databaseUrl, { ...options, listenUrl: config.databaseListenUrl });
  if (!config.databaseReadUrl) return primary;
  return withReadReplica(
    primary,
    postgresDatabase(config.databaseReadUrl, options),
    config.databaseReadMaxLagMs,
  );
}
