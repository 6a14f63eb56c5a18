import { createRequire } from "node:module";
import type pg from "pg";
import { describedOnceQuery } from "./described-once.ts";
import { preparedName } from "./prepared.ts";

/** Anything SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "embedded";
  /**
   * For reads that may lag (lists, exports, feeds, reconciliation's selection): a read replica
   * while it keeps up (DATABASE_READ_URL), else the database itself. Never for a read that
   * follows a write of the same request or guards a change.
   */
  readonly reads: Queryable;
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` on every NOTIFY to `channel`, from any instance, reconnecting as needed.
   * The embedded database is one process, whose in-process signals already reach everyone.
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
  /** The read replica's last measured replay lag: only with DATABASE_READ_URL (null: not measured). */
  replicaLagMs?(): number | null;
  close(): Promise<void>;
}

/** Raised when the database cannot be reached; the HTTP layer answers it with 503. */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
}

const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08006",
  "53300", // too_many_connections (max_connections or the database's CONNECTION LIMIT)
  "53400", // configuration_limit_exceeded
  "55P03", // lock_not_available: lock_timeout ran out
  "57014", // query_canceled: statement_timeout ran out
  "3D000", // invalid_catalog_name: the database is gone
  "28000", // invalid_authorization_specification
  "28P01", // invalid_password
]);

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code && CONNECTION_ERROR_CODES.has(code)) return true;
  // ALLOW_CONNECTIONS false answers 55000, a code also used for unrelated errors: match its text.
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not currently accepting connections/i.test(
    error.message,
  );
}

function translate(error: unknown): never {
  if (isConnectionError(error)) {
    throw new DatabaseUnavailableError(`database unavailable: ${(error as Error).message}`, { cause: error });
  }
  throw error;
}

export interface PostgresOptions {
  max?: number;
  /** The server cancels a statement running longer than this. */
  statementTimeoutMs?: number;
  /** The server gives up waiting for a lock after this. */
  lockTimeoutMs?: number;
  /**
   * `transaction`: behind a transaction pooler (PgBouncer's `pool_mode = transaction`), where one
   * client's statements may each run on another server connection. No named prepared statements,
   * no session settings (the timeouts are set per transaction), no LISTEN on this URL.
   */
  poolMode?: "session" | "transaction";
  /** A direct connection (not through the pooler) for LISTEN; without one, listeners are polled. */
  listenUrl?: string | undefined;
}

/** Without a LISTEN connection, how often every listener is told it may have missed something. */
export const LISTEN_POLL_MS = 1000;

/** A pool or one of its clients, given a query and a callback (the form both share in pg). */
type Submitter = (
  query: pg.QueryConfig | pg.Query,
  callback: (error: Error | undefined, result: pg.QueryResult) => void,
) => void;

// @types/pg types a submitted query's call as returning the query; with a callback, pg calls it.
const submitTo = (target: pg.Pool | pg.PoolClient): Submitter =>
  target.query.bind(target) as unknown as Submitter;

const require = createRequire(import.meta.url);

export function postgresDatabase(connectionString: string, options: PostgresOptions = {}): Database {
  // Loaded here, not at start: the embedded database (the default) has no use for it.
  const pgModule = require("pg") as typeof pg;
  const { Client, Pool, escapeIdentifier } = pgModule;
  const PreparedQuery = describedOnceQuery(pgModule);
  const transactionPooled = options.poolMode === "transaction";
  /** Sends a statement marked `prepared` under its name, so the server keeps it. */
  const send = (submit: Submitter, text: string, values: unknown[] = []): Promise<pg.QueryResult> => {
    // Behind a transaction pooler a named statement would be prepared on one server connection
    // and run on another: every statement goes unnamed there.
    const name = transactionPooled ? undefined : preparedName(text);
    // Without values and a name, pg sends the simple protocol, which also runs scripts (migrations).
    const query = name ? new PreparedQuery(name, text, values) : { text, values };
    return new Promise((resolve, reject) =>
      submit(query, (error, result) => (error ? reject(error) : resolve(result))),
    );
  };
  const statementTimeoutMs = options.statementTimeoutMs ?? 15_000;
  const lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
  const pool = new Pool({
    connectionString,
    max: options.max ?? 20,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30000,
    // No request waits on the database past a bound: the server cancels slow statements and lock
    // waits, and the client gives up on a server that stopped answering at all. A transaction
    // pooler refuses them as startup parameters: there each transaction sets them for itself,
    // and a single statement has the client's bound (and the role's own settings, docs/deploy.md).
    ...(!transactionPooled && { statement_timeout: statementTimeoutMs, lock_timeout: lockTimeoutMs }),
    query_timeout: statementTimeoutMs + 2_000,
  });
  const begin = transactionPooled
    ? `BEGIN; SET LOCAL statement_timeout = ${Math.floor(statementTimeoutMs)}; SET LOCAL lock_timeout = ${Math.floor(lockTimeoutMs)}`
    : "BEGIN";
  const submitToPool = submitTo(pool);
  // An idle client losing its server emits here; without a listener the process would crash.
  pool.on("error", () => {});
  const query = async <Row>(sql: string, params?: unknown[]): Promise<Row[]> => {
    try {
      const result = await send(submitToPool, sql, params);
      return result.rows as Row[];
    } catch (error) {
      return translate(error);
    }
  };
  const exec = async (sql: string) => {
    await query(sql);
  };
  return {
    kind: "postgres",
    query,
    exec,
    reads: { query, exec },
    async transaction<T>(work: (tx: Queryable) => Promise<T>) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        return translate(error);
      }
      let broken = false;
      // A checked-out client has no pool listener: a server lost between two statements (a
      // failover) would emit an unheard error and end the process.
      const onLost = () => {
        broken = true;
      };
      client.on("error", onLost);
      const submitToClient = submitTo(client);
      const tx: Queryable = {
        async query<Row>(sql: string, params?: unknown[]) {
          try {
            return (await send(submitToClient, sql, params)).rows as Row[];
          } catch (error) {
            if (isConnectionError(error)) broken = true;
            return translate(error);
          }
        },
        async exec(sql: string) {
          await tx.query(sql);
        },
      };
      try {
        await tx.query(begin);
        const result = await work(tx);
        await tx.query("COMMIT");
        return result;
      } catch (error) {
        if (!broken) await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release(broken);
        // A broken client is being destroyed and may still report its socket's end.
        if (!broken) client.off("error", onLost);
      }
    },
    async listen(channel, onNotify) {
      const listenUrl = transactionPooled ? options.listenUrl : connectionString;
      if (!listenUrl) {
        // No connection that keeps a LISTEN: every listener checks again, as after a reconnect.
        const poll = setInterval(() => onNotify(), LISTEN_POLL_MS);
        poll.unref();
        return async () => clearInterval(poll);
      }
      let client: pg.Client | undefined;
      let stopped = false;
      let retry: NodeJS.Timeout | undefined;
      const connect = async () => {
        if (stopped) return;
        const candidate = new Client({ connectionString: listenUrl, connectionTimeoutMillis: 3000 });
        candidate.on("notification", (message) => onNotify(message.payload));
        candidate.on("error", () => {
          candidate.end().catch(() => {});
          if (!stopped) retry = setTimeout(connect, 1000);
        });
        try {
          await candidate.connect();
          await candidate.query(`LISTEN ${escapeIdentifier(channel)}`);
          client = candidate;
          // Anything sent while we were away is covered by this payload-less call.
          onNotify();
        } catch {
          candidate.end().catch(() => {});
          if (!stopped) retry = setTimeout(connect, 1000);
        }
      };
      await connect();
      return async () => {
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => {});
      };
    },
    async close() {
      await pool.end();
    },
  };
}
