// A prepared statement's result has the same columns on every execution: PostgreSQL refuses to
// change them ("cached plan must not change result type"). Yet pg asks the server to describe
// them on every execution and decodes that description again, building each column's name and
// parser anew: ~8 % of the service's CPU for a payment's get (docs/performance.md,
// "Changes that moved a figure"). This query asks once per statement and pool, and reuses the answer.
//
// It leans on pg's Query internals (prepare, _result, _accumulateRows), pinned by the lockfile;
// test/platform/db/described-once.test.ts checks the rows, the columns and the errors against
// the plain query, so an upgrade that changes them fails there, not in production.
import type pg from "pg";

/** What pg learns from a row description and keeps on its result. */
interface Description {
  fields: unknown[];
  parsers: unknown[] | undefined;
  emptyRow: unknown;
}

/** The parts of pg's Query and Result this relies on; not in @types/pg. */
interface QueryInternals {
  name: string;
  text: string;
  values: unknown[];
  portal: string;
  binary: boolean | undefined;
  rows: number | undefined;
  callback: unknown;
  _accumulateRows: unknown;
  _result: {
    fields: unknown[];
    _parsers: unknown[] | undefined;
    _prebuiltEmptyResultObject: unknown;
  };
  listeners(event: string): unknown[];
  hasBeenParsed(connection: ConnectionInternals): boolean;
  handleError(error: unknown, connection: ConnectionInternals): void;
  _getRows(connection: ConnectionInternals, rows: number | undefined): void;
}

interface ConnectionInternals {
  submittedNamedStatements: Record<string, string>;
  parse(message: { text: string; name: string; types: unknown }): void;
  bind(message: Record<string, unknown>): void;
  close(message: { type: string; name: string }): void;
  sync(): void;
}

type QueryConstructor = new (name: string, text: string, values: unknown[]) => pg.Query;

/** pg's own Query methods this class extends, called on its instances. */
interface QueryPrototype {
  prepare(connection: ConnectionInternals): void;
  handleRowDescription(message: unknown): void;
  handleCommandComplete(message: unknown, connection: unknown): void;
}

/**
 * The Query class of one pool: named statements that send Describe only until a first execution
 * has returned their columns (or shown they return none).
 */
export function describedOnceQuery(pgModule: typeof pg): QueryConstructor {
  const described = new Map<string, Description | "no rows">();
  const prepareValue = (pgModule as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils
    .prepareValue;
  const pgQuery = pgModule.Query.prototype as unknown as QueryPrototype;

  class DescribedOnceQuery extends pgModule.Query {
    private sawDescription = false;

    constructor(name: string, text: string, values: unknown[]) {
      // A text, not a config object: pg copies a config object's every property descriptor.
      super(text, values);
      (this as unknown as QueryInternals).name = name;
    }

    prepare(connection: ConnectionInternals): void {
      const self = this as unknown as QueryInternals;
      const known = described.get(self.name);
      if (!known) {
        pgQuery.prepare.call(this, connection);
        return;
      }
      // pg's own prepare, less the Describe.
      if (!self.hasBeenParsed(connection)) {
        connection.parse({ text: self.text, name: self.name, types: undefined });
        connection.submittedNamedStatements[self.name] = self.text;
      }
      try {
        connection.bind({
          portal: self.portal,
          statement: self.name,
          values: self.values,
          binary: self.binary,
          valueMapper: prepareValue,
        });
      } catch (error) {
        connection.close({ type: "S", name: self.name });
        connection.sync();
        self.handleError(error, connection);
        return;
      }
      if (known !== "no rows") {
        const result = self._result;
        result.fields = known.fields;
        result._parsers = known.parsers;
        result._prebuiltEmptyResultObject = known.emptyRow;
        self._accumulateRows = self.callback || !self.listeners("row").length;
      }
      self._getRows(connection, self.rows);
    }

    handleRowDescription(message: unknown): void {
      pgQuery.handleRowDescription.call(this, message);
      this.sawDescription = true;
    }

    handleCommandComplete(message: unknown, connection: unknown): void {
      pgQuery.handleCommandComplete.call(this, message, connection);
      const self = this as unknown as QueryInternals;
      if (described.has(self.name)) return;
      const result = self._result;
      described.set(
        self.name,
        this.sawDescription
          ? { fields: result.fields, parsers: result._parsers, emptyRow: result._prebuiltEmptyResultObject }
          : "no rows",
      );
    }
  }
  return DescribedOnceQuery as unknown as QueryConstructor;
}
