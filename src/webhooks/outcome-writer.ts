import type { Database } from "../platform/db/database.ts";
import { type AttemptRecord, recordAttempts } from "./sql/queue.ts";

type Pending = AttemptRecord & { done: { resolve: () => void; reject: (error: unknown) => void } };

/** The writer's one state: one write at a time, the outcomes finishing meanwhile in the next. */
type WriteMode = { kind: "idle" } | { kind: "scheduled" } | { kind: "writing"; run: Promise<void> };

/**
 * Writes attempts' outcomes. One write is in flight at a time and the outcomes that finish
 * meanwhile go in the next, so a busy dispatcher makes few large writes rather than many small
 * ones that contend with its claims.
 */
export class OutcomeWriter {
  private pending: Pending[] = [];
  private mode: WriteMode = { kind: "idle" };

  constructor(private readonly db: Database) {}

  /** Resolves once the outcome is written; rejects when its write failed (its lease then runs out). */
  record(result: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...result, done: { resolve, reject } });
      this.schedule();
    });
  }

  /** Writes what is queued, after the write in flight. */
  async drain(): Promise<void> {
    if (this.mode.kind === "writing") await this.mode.run;
    await this.write();
  }

  private schedule(): void {
    if (this.mode.kind !== "idle") return;
    this.mode = { kind: "scheduled" };
    setImmediate(() => {
      const run = this.write().finally(() => {
        this.mode = { kind: "idle" };
        if (this.pending.length > 0) this.schedule();
      });
      this.mode = { kind: "writing", run };
    });
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await recordAttempts(this.db, batch);
      for (const entry of batch) entry.done.resolve();
    } catch (error) {
      // Unrecorded attempts keep their lease; when it runs out they are claimed and sent again.
      for (const entry of batch) entry.done.reject(error);
    }
  }
}
