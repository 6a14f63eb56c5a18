import type { Config } from "../config.ts";
import { type Database, postgresDatabase } from "./database.ts";
import { openEmbeddedDatabase } from "./embedded.ts";

export async function openDatabase(
  config: Pick<
    Config,
    | "databaseUrl"
    | "dataDir"
    | "databaseStatementTimeoutMs"
    | "databaseLockTimeoutMs"
    | "databasePoolMode"
    | "databaseListenUrl"
  >,
): Promise<Database> {
  return config.databaseUrl
    ? postgresDatabase(config.databaseUrl, {
        statementTimeoutMs: config.databaseStatementTimeoutMs,
        lockTimeoutMs: config.databaseLockTimeoutMs,
        poolMode: config.databasePoolMode,
        listenUrl: config.databaseListenUrl,
      })
    : openEmbeddedDatabase(config.dataDir);
}
