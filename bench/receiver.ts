// A webhook receiver for the delivery scenario: answers 200 at once and counts per path, so the
// bench can follow a drain without querying the database it is measuring.
import { createServer } from "node:http";

const received = new Map<string, number>();
const server = createServer((request, response) => {
  const path = request.url ?? "/";
  if (request.method === "GET") {
    response.end(JSON.stringify({ received: received.get(path) ?? 0 }));
    return;
  }
  request.resume();
  request.on("end", () => {
    received.set(path, (received.get(path) ?? 0) + 1);
    response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("receiver ready\n"));
process.on("SIGTERM", () => process.exit(0));
