import { type Database, postgresDatabase } from "./database.ts";
import { openEmbeddedDatabase } from "./embedded.ts";
import { withReadReplica } from "./read-replica.ts";

/** The database settings, as the configuration reads them (DATABASE_URL, DATA_DIR, …). */
export interface DatabaseSettings {
  databaseUrl: string | undefined;
  /** Where the embedded database (and the development key file) lives. */
  dataDir: string;
  databaseStatementTimeoutMs: number;
  databaseLockTimeoutMs: number;
  /** `transaction` behind a transaction pooler (PgBouncer): no named statements, no session state. */
  databasePoolMode: "session" | "transaction";
  /** A direct connection for LISTEN when the pool is a transaction pooler; unset: polling. */
  databaseListenUrl: string | undefined;
  /** A streaming replica for the reads that may lag; unset: every read goes to the primary. */
  databaseReadUrl: string | undefined;
  /** Past this replay lag the replica's reads go to the primary. */
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
