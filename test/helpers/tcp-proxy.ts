import { connect, createServer, type Server, type Socket } from "node:net";

/** Where a proxy forwards to: a TCP address or a Unix socket (a PostgreSQL cluster's). */
export type ProxyTarget = { host: string; port: number } | { path: string };

/**
 * A loopback TCP proxy that can be cut, restored and pointed elsewhere, to simulate a server going
 * away or a managed database's address moving to its standby. With `delayMs` every chunk is held
 * that long each way, as a link between zones would.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private target: ProxyTarget,
    private readonly delayMs = 0,
  ) {}

  async open(): Promise<number> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      this.forward(client, upstream);
      this.forward(upstream, client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
    return this.port;
  }

  /** New connections go to `target`; open ones are left as they are (cut them first). */
  retarget(target: ProxyTarget): void {
    this.target = target;
  }

  /** Drops every connection and stops accepting new ones (connections are refused). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private forward(from: Socket, to: Socket): void {
    if (this.delayMs === 0) {
      from.pipe(to);
      return;
    }
    // Timers of one duration fire in the order they were set, so the bytes keep their order.
    from.on("data", (chunk) => setTimeout(() => to.destroyed || to.write(chunk), this.delayMs));
    from.on("end", () => setTimeout(() => to.end(), this.delayMs));
  }
}
