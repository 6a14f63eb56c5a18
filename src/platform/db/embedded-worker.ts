// The embedded database's thread: PGlite (single-threaded WebAssembly) runs here, so that SQL and
// the HTTP thread use both cores. It answers the messages of embedded-thread.ts, one per call.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { WorkerReply, WorkerRequest } from "./embedded-protocol.ts";
import { embeddedQuery } from "./embedded-statements.ts";

// PGlite's file system (Emscripten's) sets each file's mode itself after creating it (0666 for
// most of PostgreSQL's files), past the process's umask. On this thread, which only PGlite uses,
// such a mode keeps its owner's bits only: the data directory stays 0600 files in 0700 folders.
const ownerOnly = <Mode>(mode: Mode): Mode => (typeof mode === "number" ? ((mode & ~0o077) as Mode) : mode);
const { chmodSync, fchmodSync } = fs;
fs.chmodSync = (path, mode) => chmodSync(path, ownerOnly(mode));
fs.fchmodSync = (fd, mode) => fchmodSync(fd, ownerOnly(mode));

const port = parentPort;
if (!port) throw new Error("embedded-worker.ts runs as a worker thread");
const { dataDir } = workerData as { dataDir: string };
const pglite = await PGlite.create(dataDir);
const query = embeddedQuery(pglite);

/** Open transactions: their handle, and how to end them when the main thread says so. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void }>();

const send = (reply: WorkerReply) => port.postMessage(reply);

function failure(error: unknown) {
  const { message, name, ...fields } = error as Error & Record<string, unknown>;
  // What the main thread needs to rebuild the error: PostgreSQL's code, detail, constraint, ….
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) plain[key] = value;
  }
  return { message: String(message ?? error), name: String(name ?? "Error"), fields: plain };
}

port.on("message", (request: WorkerRequest) => {
  const target = !("tx" in request) || request.tx === undefined ? pglite : transactions.get(request.tx)?.tx;
  void (async () => {
    try {
      switch (request.op) {
        case "query": {
          if (!target) throw new Error("no such transaction");
          send({ id: request.id, rows: await query(target, request.sql, request.params, request.name) });
          return;
        }
        case "exec": {
          if (!target) throw new Error("no such transaction");
          await target.exec(request.sql);
          send({ id: request.id, rows: [] });
          return;
        }
        case "begin": {
          const txId = request.id;
          await pglite
            .transaction(
              (tx) =>
                new Promise<void>((resolve, reject) => {
                  transactions.set(txId, {
                    tx,
                    end: (commit) => (commit ? resolve() : reject(new RolledBack())),
                  });
                  send({ id: request.id, rows: [] });
                }),
            )
            .then(
              () => send({ id: -txId, rows: [] }),
              (error: unknown) =>
                send(
                  error instanceof RolledBack
                    ? { id: -txId, rows: [] }
                    : { id: -txId, error: failure(error) },
                ),
            );
          transactions.delete(txId);
          return;
        }
        case "end": {
          // Its outcome is the transaction's own answer, under -tx.
          const open = transactions.get(request.tx);
          if (open) open.end(request.commit);
          else send({ id: -request.tx, error: failure(new Error("no such transaction")) });
          return;
        }
        case "close": {
          await pglite.close();
          send({ id: request.id, rows: [] });
          return;
        }
      }
    } catch (error) {
      send({ id: request.id, error: failure(error) });
    }
  })();
});

class RolledBack extends Error {}

send({ id: 0, rows: [] });
