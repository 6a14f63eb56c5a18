// The least a webhook delivery must do: sign a ~300-byte body (Standard Webhooks) and POST it with
// undici to the bench's receiver, CONCURRENCY at a time, COUNT in all, after a warm-up. Prints
// deliveries per second.
import { createHmac, randomUUID } from "node:crypto";
import { Agent, request } from "undici";

const url = process.env.URL as string;
const count = Number(process.env.COUNT);
const concurrency = Number(process.env.CONCURRENCY);
const key = Buffer.alloc(32, 5);
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });

const body = (id: string) =>
  JSON.stringify({
    event: "payment.failed",
    transactionId: id,
    status: "cancelled",
    amount: 1999,
    currency: "usd",
    customerEmail: "bench@example.com",
    processorPaymentId: null,
    metadata: { orderId: "bench" },
    completedAt: new Date().toISOString(),
    timestamp: new Date().toISOString(),
    amountRefunded: 0,
  });

let next = 0;
async function worker(count: number): Promise<void> {
  while (next < count) {
    next += 1;
    const id = randomUUID();
    const payload = body(id);
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${payload}`).digest("base64");
    const answer = await request(url, {
      method: "POST",
      dispatcher: agent,
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": `v1,${signature}`,
      },
      body: payload,
    });
    await answer.body.dump();
    if (answer.statusCode !== 200) throw new Error(`receiver answered ${answer.statusCode}`);
  }
}

const run = async (count: number) => {
  next = 0;
  await Promise.all(Array.from({ length: concurrency }, () => worker(count)));
};
// Warmed up as the service's dispatcher is, by a first backlog a third the size, not counted.
await run(Math.ceil(count / 3));
const started = performance.now();
await run(count);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ rate: Math.round(count / seconds) })}\n`);
await agent.close();
