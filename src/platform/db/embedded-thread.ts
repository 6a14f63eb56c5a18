import { Worker } from "node:worker_threads";
import { tracing } from "../telemetry/tracing.ts";
import { type Database, DatabaseUnavailableError, type Queryable } from "./database.ts";
import type { WorkerReply, WorkerRequest } from "./embedded-protocol.ts";
import { preparedName } from "./prepared.ts";

type Row = Record<string, unknown>;
interface Waiting {
  resolve(rows: Row[]): void;
  reject(error: Error): void;
}

/** Distributes what could not be sent with its request: the caller's own id. */
type Request = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, "id"> : never) : never;

function rebuild(error: { message: string; name: string; fields: Record<string, unknown> }): Error {
  return Object.assign(new Error(error.message), error.fields, { name: error.name });
}

/**
 * The embedded database (PGlite) on its own thread, behind the same interface as PostgreSQL:
 * queries are messages, a transaction holds the database until it ends, as PGlite's own does.
 */
export async function startEmbeddedThread(
  source: { dataDir: string },
  onClose: () => Promise<void> = async () => {},
): Promise<Database> {
  const options = { workerData: source };
  const worker = import.meta.url.endsWith(".ts")
    ? // Run from the sources (tests, `npm run dev`): the thread registers the TypeScript loader first.
      new Worker(
        `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(
          new URL("./embedded-worker.ts", import.meta.url).href,
        )}); })`,
        { ...options, eval: true },
      )
    : new Worker(new URL("./embedded-worker.js", import.meta.url), options);
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let gone: Error | undefined;

  const expect = (id: number) =>
    new Promise<Row[]>((resolve, reject) => {
      if (gone) reject(gone);
      else waiting.set(id, { resolve, reject });
    });
  const failAll = (error: Error) => {
    gone ??= error;
    for (const entry of waiting.values()) entry.reject(gone);
    waiting.clear();
  };
  worker.on("message", (reply: WorkerReply) => {
    const entry = waiting.get(reply.id);
    if (!entry) return;
    waiting.delete(reply.id);
    if ("error" in reply) entry.reject(rebuild(reply.error));
    else entry.resolve(reply.rows);
  });
  worker.on("error", (error) =>
    failAll(new DatabaseUnavailableError(`embedded database failed: ${error.message}`)),
  );
  worker.on("exit", () => failAll(new DatabaseUnavailableError("embedded database stopped")));

  const ask = (request: Request): Promise<Row[]> => {
    const id = nextId++;
    const answer = expect(id);
    if (!gone) worker.postMessage({ ...request, id });
    return answer;
  };
  // No driver instrumentation sees these statements: while traces are on, each is a span here.
  const queryable = (tx?: number): Queryable => ({
    query: <R>(sql: string, params?: unknown[]) =>
      tracing().statement(
        sql,
        async () => (await ask({ op: "query", sql, params, tx, name: preparedName(sql) })) as R[],
      ),
    exec: (sql: string) =>
      tracing().statement(sql, async () => {
        await ask({ op: "exec", sql, tx });
      }),
  });

  try {
    await expect(0);
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  const outside = queryable();
  return {
    kind: "embedded",
    query: outside.query,
    exec: outside.exec,
    reads: outside,
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const id = nextId++;
      const outcome = expect(-id);
      // Its outcome may fail before anyone awaits it (a rollback reported late): never unhandled.
      outcome.catch(() => {});
      const opened = expect(id);
      if (!gone) worker.postMessage({ op: "begin", id } satisfies WorkerRequest);
      await opened;
      let result: T;
      try {
        result = await work(queryable(id));
      } catch (error) {
        worker.postMessage({ op: "end", id: nextId++, tx: id, commit: false } satisfies WorkerRequest);
        await outcome.catch(() => {});
        throw error;
      }
      worker.postMessage({ op: "end", id: nextId++, tx: id, commit: true } satisfies WorkerRequest);
      await outcome;
      return result;
    },
    listen: async () => async () => {},
    async close() {
      try {
        await ask({ op: "close" });
      } finally {
        await worker.terminate();
        await onClose();
      }
    },
  };
}
