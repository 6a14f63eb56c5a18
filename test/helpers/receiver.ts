import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A status, answered with `{"received":true}`, or a status and the body to answer with. */
type Answer = number | { status: number; body: string };
export type Behaviour = (received: Received, previous: Received[]) => Promise<Answer> | Answer;

/** A merchant's webhook endpoint on loopback: answers per path and records every request. */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  url = "";

  constructor(private readonly behaviours: Record<string, Behaviour>) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const path = (request.url ?? "/").split("?")[0] as string;
        const received = {
          path,
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
          at: Date.now(),
        };
        const previous = this.received.filter((entry) => entry.path === path);
        this.received.push(received);
        const behaviour = this.behaviours[path];
        try {
          const answer = behaviour ? await behaviour(received, previous) : 404;
          const { status, body } =
            typeof answer === "number" ? { status: answer, body: '{"received":true}' } : answer;
          if (status >= 300 && status < 400) response.setHeader("location", `${this.url}/ok`);
          response.writeHead(status, { "content-type": "application/json" }).end(body);
        } catch {
          response.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  at(path: string): Received[] {
    return this.received.filter((entry) => entry.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** The webhook body's fields (docs/api.md, "Webhooks"), in the order they are sent. */
export const WEBHOOK_BODY_FIELDS = [
  "event",
  "transactionId",
  "status",
  "amount",
  "currency",
  "customerEmail",
  "processorPaymentId",
  "metadata",
  "completedAt",
  "timestamp",
  "amountRefunded",
];
