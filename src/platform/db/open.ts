import { type Database, postgresDatabase } from "./database.ts";
import { openEmbeddedDatabase } from "./embedded.ts";
import { withReadReplica } from "./read-replica.ts";

/** The database settings, as the configuration reads them (DATABASE_URL, DATA_DIR, …). */
export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  databaseStatementTimeoutMs: number;
  databaseLockTimeoutMs: number;
  databasePoolMode: "session" | "transaction";
  databaseListenUrl: string | undefined;
  databaseReadUrl: string | undefined;
  databaseReadMaxLagMs: number;
}

export async function openDatabase(config: DatabaseSettings): Promise<Database> {
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
