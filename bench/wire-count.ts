// A TCP proxy in front of PostgreSQL (or PgBouncer) that reads the client's side of the wire
// protocol: how many statements a request runs and how many round trips they take. Each Execute or
// simple Query is a statement; each Sync or simple Query waits for its ReadyForQuery, a round trip.
import { createConnection, createServer, type Socket } from "node:net";

export interface WireCounts {
  statements: number;
  roundTrips: number;
  parses: number;
}

/** Listens on 127.0.0.1 and forwards to `target` (a host and port, or a Unix socket path). */
export async function startWireCounter(
  target: { host: string; port: number } | { path: string },
): Promise<{ port: number; counts: WireCounts; close(): Promise<void> }> {
  const counts: WireCounts = { statements: 0, roundTrips: 0, parses: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    // The startup message (and an SSL request before it) carries no type byte.
    let startedUp = false;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (!startedUp) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          startedUp = code !== 80877103 && code !== 80877104; // SSLRequest, GSSENCRequest
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1) + 1;
        if (pending.length < length) break;
        const type = String.fromCharCode(pending[0] as number);
        if (type === "E" || type === "Q") counts.statements++;
        if (type === "S" || type === "Q") counts.roundTrips++;
        if (type === "P") counts.parses++;
        pending = pending.subarray(length);
      }
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the wire counter has no port");
  return {
    port: address.port,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
