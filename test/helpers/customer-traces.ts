import type { Queryable } from "../../src/platform/db/database.ts";

/** The tables any of whose rows hold `needle` as text (any case): where a customer could still be. */
export async function tablesHolding(db: Queryable, needle: string): Promise<string[]> {
  const tables = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    const [row] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${name}" t WHERE strpos(lower(t::text), lower($1)) > 0`,
      [needle],
    );
    if ((row?.n ?? 0) > 0) holding.push(name);
  }
  return holding;
}
