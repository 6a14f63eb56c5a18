// Statements the service sends many times a second: each PostgreSQL connection parses and plans
// them once and keeps them (a named prepared statement), instead of parsing and planning them
// again for every request. For a lookup by key that is most of the server's work: a payment's get
// costs PostgreSQL 91 µs of CPU as a one-off statement and 40 µs prepared (docs/performance.md).
//
// Only for statements whose best plan does not depend on the values bound to them (lookups by a
// key, writes by id): after five executions PostgreSQL may keep one generic plan for all values.
// One whose plan does (a date range, whose selectivity varies) stays a one-off. Name the columns:
// a migration that adds one would change a prepared `SELECT *`'s result, which PostgreSQL refuses
// ("cached plan must not change result type") on every connection that prepared it. The embedded
// database, one connection, prepares them too (embedded-statements.ts).

const names = new Map<string, string>();

/** Marks `sql` as prepared on each connection; returns it unchanged. */
export function prepared(sql: string): string {
  if (!names.has(sql)) names.set(sql, `checkout_${names.size + 1}`);
  return sql;
}

/** The name `sql` is prepared under, or undefined for a one-off statement. */
export const preparedName = (sql: string): string | undefined => names.get(sql);
