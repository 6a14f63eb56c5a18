import type { Database, Queryable } from "./database.ts";

/** How often the replica's replay lag is measured. */
export const LAG_CHECK_MS = 500;

/**
 * The replica's replay lag in milliseconds: 0 when it has replayed all it received, else the
 * age of the last transaction it replayed (so a replica whose replay stopped ages at once).
 */
const REPLAY_LAG = `SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE EXTRACT(EPOCH FROM (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000
  END::float8 AS lag_ms`;

export type ReadTarget = "replica" | "primary";

/**
 * The database with its lagging reads sent to a streaming replica while the replica's replay lag
 * is under `maxLagMs` (DATABASE_READ_MAX_LAG_MS). A replica that lags more, cannot be reached,
 * fails a read or is not a standby at all leaves those reads to the primary until a check finds
 * it caught up again. Everything else (writes, transactions, every other read) is the primary's.
 */
export function withReadReplica(
  primary: Database,
  replica: Database,
  maxLagMs: number,
): Database & { readTarget(): ReadTarget; replicaLagMs(): number | null } {
  let target: ReadTarget = "primary";
  let lastLag: number | null = null;
  const check = async () => {
    try {
      const [row] = await replica.query<{ lag_ms: number | null }>(REPLAY_LAG);
      lastLag = row?.lag_ms ?? null;
      // Not a standby at all (null), or too far behind: the primary answers.
      target = lastLag !== null && lastLag <= maxLagMs ? "replica" : "primary";
    } catch {
      lastLag = null;
      target = "primary";
    }
  };
  let checking = check();
  const timer = setInterval(() => {
    checking = checking.then(check);
  }, LAG_CHECK_MS);
  timer.unref();

  const reads: Queryable = {
    async query<Row>(sql: string, params?: unknown[]): Promise<Row[]> {
      if (target === "replica") {
        try {
          return await replica.query<Row>(sql, params);
        } catch {
          // A replica that fails a read (gone, restarting, a recovery conflict) is left until a
          // check finds it well again; the read goes to the primary meanwhile.
          target = "primary";
        }
      }
      return primary.query<Row>(sql, params);
    },
    exec: (sql) => primary.exec(sql),
  };
  return {
    ...primary,
    reads,
    readTarget: () => target,
    replicaLagMs: () => lastLag,
    async close() {
      clearInterval(timer);
      await checking;
      await Promise.all([primary.close(), replica.close()]);
    },
  };
}
