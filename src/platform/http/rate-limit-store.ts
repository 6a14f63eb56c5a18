import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import type { RedisLink } from "../limits/redis-link.ts";
import { ApiError } from "./errors.ts";

type Counted = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Counted) => void;

interface CounterStore {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): CounterStore;
}

// The plugin's own counters (CommonJS, untyped): the same arithmetic whichever store answers.
const require = createRequire(import.meta.url);
const LocalStore: new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => CounterStore = require("@fastify/rate-limit/store/LocalStore.js");
const RedisStore: new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key: string,
) => CounterStore = require("@fastify/rate-limit/store/RedisStore.js");

/**
 * A rate-limit store shared through Redis that counts in this instance's memory whenever Redis
 * cannot answer, so a lost Redis weakens the limit (per instance) instead of switching it off.
 */
export function resilientStore(link: RedisLink, nameSpace: string) {
  class ResilientStore {
    private readonly shared: CounterStore;
    private readonly local: CounterStore;

    // The plugin constructs the store with its options; children are made with their parent's stores.
    constructor(_pluginOptions?: unknown, stores?: { shared: CounterStore; local: CounterStore }) {
      this.shared = stores?.shared ?? new RedisStore(false, false, link.redis, nameSpace);
      this.local = stores?.local ?? new LocalStore(false, false);
    }

    // The plugin always passes the window and the limit, though its typings leave them out.
    incr(key: string, callback: Callback, timeWindow = 0, max = 0): void {
      if (!link.ready) {
        this.local.incr(key, callback, timeWindow, max);
        return;
      }
      this.shared.incr(
        key,
        (error, result) => (error ? this.local.incr(key, callback, timeWindow, max) : callback(null, result)),
        timeWindow,
        max,
      );
    }

    child(routeOptions: unknown): ResilientStore {
      return new ResilientStore(undefined, {
        shared: this.shared.child(routeOptions),
        local: this.local.child(routeOptions),
      });
    }
  }
  return ResilientStore;
}

/**
 * How every rate limit of the service counts: through Redis under `nameSpace` when there is one
 * (here while it cannot answer), never failing a request for the counter's sake.
 */
export const limitCounting = (redis: RedisLink | undefined, nameSpace: string) => ({
  ...(redis && { store: resilientStore(redis, nameSpace) }),
  skipOnError: true,
});

/** A limit's refusal in the error envelope: `refused`, then when to retry. */
export const refusedAs = (refused: string) => (_request: unknown, context: { after: string }) =>
  new ApiError("RATE_LIMIT_EXCEEDED", `${refused}; retry in ${context.after}`);
