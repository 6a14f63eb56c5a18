// PGlite's statements, in process or on its thread. PGlite's `query` parses, describes and plans
// every statement on every run, each step a separate call into the WebAssembly backend. A
// statement marked `prepared` (prepared.ts) is parsed once here, under its name, then bound and
// run in one exchange, as a PostgreSQL connection does.
import { type PGlite, parse, protocol, type Transaction } from "@electric-sql/pglite";
import type { Database, Queryable } from "./database.ts";
import { preparedName } from "./prepared.ts";

type Row = Record<string, unknown>;
const { serialize } = protocol;

function joined(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/**
 * A query on PGlite or one of its open transactions: by name when `name` is given (a statement
 * marked `prepared`), with PGlite's own `query` otherwise.
 */
export type EmbeddedQuery = (
  target: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] | undefined,
  name: string | undefined,
) => Promise<Row[]>;

export function embeddedQuery(pglite: PGlite): EmbeddedQuery {
  /** Each statement prepared so far, by name: its parameters' types, which choose their serializers. */
  const parameterTypes = new Map<string, number[]>();
  const exchange = (parts: Uint8Array[]) => pglite.execProtocolStream(joined(parts), { syncToFs: false });

  async function prepare(name: string, text: string): Promise<number[]> {
    const messages = await exchange([
      serialize.parse({ name, text }),
      serialize.describe({ type: "S", name }),
      serialize.sync(),
    ]);
    const description = messages.find((message) => message.name === "parameterDescription") as
      | { dataTypeIDs: number[] }
      | undefined;
    const types = description?.dataTypeIDs ?? [];
    parameterTypes.set(name, types);
    return types;
  }

  async function runPrepared(name: string, text: string, params: readonly unknown[]): Promise<Row[]> {
    const types = parameterTypes.get(name) ?? (await prepare(name, text));
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = pglite.serializers[types[index] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await exchange([
      serialize.bind({ statement: name, values }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    return (parse.parseResults(messages, pglite.parsers)[0]?.rows ?? []) as Row[];
  }

  return async (target, sql, params = [], name) => {
    if (name === undefined) return (await target.query<Row>(sql, [...params])).rows;
    // The locks PGlite's own query takes: outside a transaction it waits for any open one to
    // end, and its writes reach the data directory after it; inside, only the statement's own.
    const run = () => pglite._runExclusiveQuery(() => runPrepared(name, sql, params));
    if (target !== pglite) return run();
    return pglite._runExclusiveTransaction(async () => {
      const rows = await run();
      await pglite.syncToFs();
      return rows;
    });
  };
}

/**
 * PGlite in this process (the tests' databases); the service runs it on a thread of its own
 * (embedded-thread.ts). It is one connection: it queues queries itself, and `transaction` holds it.
 */
export function embeddedDatabase(pglite: PGlite, onClose: () => Promise<void> = async () => {}): Database {
  const query = embeddedQuery(pglite);
  const wrap = (target: PGlite | Transaction): Queryable => ({
    async query<Row>(sql: string, params?: unknown[]) {
      return (await query(target, sql, params, preparedName(sql))) as Row[];
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  });
  const outside = wrap(pglite);
  return {
    kind: "embedded",
    query: outside.query,
    exec: outside.exec,
    reads: outside,
    transaction: (work) => pglite.transaction((tx) => work(wrap(tx))),
    listen: async () => async () => {},
    async close() {
      await pglite.close();
      await onClose();
    },
  };
}
