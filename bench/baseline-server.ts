// Same-run baselines: the least each route must do, on the same database and the same processor
// stub as the service. A bare Fastify route; one parameterised INSERT; one INSERT and one undici
// POST to the processor stub (the least a create must do); one SELECT by primary key. Each
// statement is a named prepared statement, parsed once per connection as the service's are,
// except behind a transaction pooler (DATABASE_POOL_MODE=transaction), where a name would not
// follow the session. With EMBEDDED_DIR it runs on PGlite in this process, its statements named
// as the service's embedded mode names them.
import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import pg from "pg";
import { request } from "undici";
import { embeddedQuery } from "../src/platform/db/embedded-statements.ts";

/** `name`: prepare it once per connection under that name, where the connection keeps it. */
type Query = (sql: string, params?: unknown[], name?: string) => Promise<Record<string, unknown>[]>;

async function openDatabase(): Promise<{ query: Query; close(): Promise<void> }> {
  const embeddedDir = process.env.EMBEDDED_DIR;
  if (embeddedDir) {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(embeddedDir);
    const query = embeddedQuery(db);
    return {
      query: (sql, params, name) => query(db, sql, params, name),
      close: () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL as string, max: 20 });
  const named = process.env.DATABASE_POOL_MODE !== "transaction";
  return {
    query: async (text, values, name) =>
      (
        await pool.query(
          named && name ? { name, text, values: values ?? [] } : { text, values: values ?? [] },
        )
      ).rows,
    close: () => pool.end(),
  };
}

const db = await openDatabase();
const processorUrl = process.env.PROCESSOR_URL;
await db.query(`CREATE TABLE IF NOT EXISTS bench_items (
  id uuid PRIMARY KEY, amount integer NOT NULL, currency text NOT NULL, email text NOT NULL,
  checkout_id text, created_at timestamptz NOT NULL DEFAULT now()
)`);
const seeded = randomUUID();
await db.query(
  "INSERT INTO bench_items (id, amount, currency, email) VALUES ($1, 1999, 'usd', 'a@example.com')",
  [seeded],
);

interface CreateBody {
  amount: number;
  currency: string;
  customerEmail: string;
}

const app = Fastify({ logger: false });
app.get("/bare", async () => ({ success: true }));
app.post<{ Body: CreateBody }>("/insert", async (req) => {
  const id = randomUUID();
  await db.query(
    "INSERT INTO bench_items (id, amount, currency, email) VALUES ($1, $2, $3, $4)",
    [id, req.body.amount, req.body.currency, req.body.customerEmail],
    "bench_insert",
  );
  return { success: true, data: { id } };
});
app.post<{ Body: CreateBody }>("/insert-post", async (req) => {
  const id = randomUUID();
  const form = new URLSearchParams({
    mode: "payment",
    "line_items[0][quantity]": "1",
    "line_items[0][price_data][currency]": req.body.currency,
    "line_items[0][price_data][unit_amount]": String(req.body.amount),
    customer_email: req.body.customerEmail,
    "metadata[transactionId]": id,
  }).toString();
  const answer = await request(`${processorUrl}/v1/checkout/sessions`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer sk_test_bench" },
    body: form,
  });
  const session = (await answer.body.json()) as { id: string; url: string };
  await db.query(
    "INSERT INTO bench_items (id, amount, currency, email, checkout_id) VALUES ($1, $2, $3, $4, $5)",
    [id, req.body.amount, req.body.currency, req.body.customerEmail, session.id],
    "bench_insert_checkout",
  );
  return { success: true, data: { transactionId: id, paymentUrl: session.url } };
});
app.get("/select", async () => {
  const rows = await db.query("SELECT * FROM bench_items WHERE id = $1", [seeded], "bench_select");
  return { success: true, data: rows[0] };
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.stdout.write("baseline ready\n");
process.on(
  "SIGTERM",
  () =>
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
