// A webhook receiver for the delivery scenario: answers 200 at once and counts.
import { createServer } from "node:http";

let received = 0;
const server = createServer((request, response) => {
  if (request.method === "GET") {
    response.end(JSON.stringify({ received }));
    return;
  }
  request.resume();
  request.on("end", () => {
    received += 1;
    response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("receiver ready\n"));
process.on("SIGTERM", () => process.exit(0));
