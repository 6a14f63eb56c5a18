/** What the main thread asks the embedded database's thread (embedded-worker.ts). */
export type WorkerRequest =
  | {
      id: number;
      op: "query";
      sql: string;
      params?: unknown[] | undefined;
      tx?: number | undefined;
      /** The statement's name where it is prepared (prepared.ts): parsed once, then only run. */
      name?: string | undefined;
    }
  | { id: number; op: "exec"; sql: string; tx?: number | undefined }
  /** Opens a transaction whose id is this request's id; its outcome comes back under -id. */
  | { id: number; op: "begin" }
  /** Commits or rolls back transaction `tx`; no answer of its own: the transaction's comes under -tx. */
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "close" };

/** One answer per request: rows, or the error rebuilt on the main thread. Id 0 says "ready". */
export type WorkerReply =
  | { id: number; rows: Record<string, unknown>[] }
  | { id: number; error: { message: string; name: string; fields: Record<string, unknown> } };
