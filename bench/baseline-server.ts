// Same-run baselines: a bare Fastify route, one parameterised INSERT, one SELECT by primary key.
import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import pg from "pg";

const databaseUrl = process.env.DATABASE_URL as string;
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
await pool.query(`CREATE TABLE IF NOT EXISTS bench_items (
  id uuid PRIMARY KEY, amount integer NOT NULL, currency text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL DEFAULT now()
)`);
const seeded = randomUUID();
await pool.query(
  "INSERT INTO bench_items (id, amount, currency, email) VALUES ($1, 1999, 'usd', 'a@example.com')",
  [seeded],
);

const app = Fastify({ logger: false });
app.get("/bare", async () => ({ success: true }));
app.post<{ Body: { amount: number; currency: string; customerEmail: string } }>(
  "/insert",
  async (request) => {
    const id = randomUUID();
    await pool.query("INSERT INTO bench_items (id, amount, currency, email) VALUES ($1, $2, $3, $4)", [
      id,
      request.body.amount,
      request.body.currency,
      request.body.customerEmail,
    ]);
    return { success: true, data: { id } };
  },
);
app.get("/select", async () => {
  const { rows } = await pool.query("SELECT * FROM bench_items WHERE id = $1", [seeded]);
  return { success: true, data: rows[0] };
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.stdout.write("baseline ready\n");
process.on(
  "SIGTERM",
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
