import type { Redis } from "ioredis";
import type { Logger } from "../telemetry/logger.ts";

/** What /health reports about the shared rate-limit store. */
export interface RedisState {
  status: "ok" | "unavailable";
  error?: string;
}

/**
 * Watches a Redis connection and says so, loudly, when it is lost or back: a warning at start
 * and on each failed reconnect, an info line on recovery.
 */
export class RedisLink {
  private lastError: string | undefined = "not connected yet";

  constructor(
    readonly redis: Redis,
    log: Logger,
  ) {
    redis.on("error", (error: Error) => {
      this.lastError = error.message;
      log.warn(
        { err: { message: error.message } },
        "Redis unreachable: rate limits fall back to per-instance memory until it returns",
      );
    });
    redis.on("ready", () => {
      if (this.lastError && this.lastError !== "not connected yet") {
        log.info("Redis reachable again: rate limits are shared across instances");
      }
      this.lastError = undefined;
    });
  }

  get ready(): boolean {
    return this.redis.status === "ready";
  }

  state(): RedisState {
    // The reason is in the log (see the constructor); /health is public, so it says only this.
    return this.ready ? { status: "ok" } : { status: "unavailable", error: "Redis unreachable" };
  }
}
