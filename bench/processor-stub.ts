// The least a processor can be: a bare node:http server answering the Stripe calls the service's
// throughput scenarios make (checkout session create and retrieve), in its own process, so the
// bench measures the service and not the sandbox. The sandbox keeps one end-to-end scenario.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";

const port = Number(process.env.PORT);
let created = 0;

const session = (id: string, amount: number, transactionId: string) =>
  JSON.stringify({
    id,
    object: "checkout.session",
    url: `http://127.0.0.1:${port}/checkout/${id}`,
    status: "open",
    payment_status: "unpaid",
    payment_intent: null,
    amount_total: amount,
    currency: "usd",
    metadata: { transactionId },
    expires_at: Math.floor(Date.now() / 1000) + 1800,
  });

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const url = request.url ?? "/";
    if (request.method === "GET" && url === "/stats") {
      response.end(JSON.stringify({ created }));
      return;
    }
    if (request.method === "POST" && url === "/v1/checkout/sessions") {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      created += 1;
      const body = session(
        `cs_stub_${randomBytes(12).toString("hex")}`,
        Number(form.get("line_items[0][price_data][unit_amount]") ?? 0),
        form.get("metadata[transactionId]") ?? "",
      );
      response.writeHead(200, { "content-type": "application/json" }).end(body);
      return;
    }
    const retrieve = /^\/v1\/checkout\/sessions\/([^/?]+)/.exec(url);
    if (request.method === "GET" && retrieve?.[1]) {
      response.writeHead(200, { "content-type": "application/json" }).end(session(retrieve[1], 0, ""));
      return;
    }
    response
      .writeHead(404, { "content-type": "application/json" })
      .end('{"error":{"type":"invalid_request_error","message":"not in the stub"}}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, "127.0.0.1", () => process.stdout.write("processor stub ready\n"));
process.on("SIGTERM", () => process.exit(0));
