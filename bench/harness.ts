// What the bench and the chaos suite share: free loopback ports, waiting for a server, and a
// fresh PostgreSQL database per run.
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

const handedOut = new Set<number>();

/**
 * A port nothing listens on, never one handed out before in this process: a port found free is
 * free again until its process binds it, and the kernel may offer it to the next caller meanwhile
 * (a baseline once lost its port to the processor stub started after it was chosen, and its
 * readiness check was answered by the stub).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free loopback port in 100 tries");
}

export async function waitUntilUp(url: string, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** A new database on the server at `adminUrl`; `drop` removes it, connections and all. */
export async function freshDatabase(
  adminUrl: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
