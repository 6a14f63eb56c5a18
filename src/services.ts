import { EventEmitter } from "node:events";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import type { MerchantAuthenticator } from "./http/merchant-auth.ts";
import type { Metrics } from "./metrics/metrics.ts";
import type { Processor } from "./processor/processor.ts";

/** In-process wake-up for the webhook dispatcher; PostgreSQL's NOTIFY reaches the other instances. */
export class OutboxSignal extends EventEmitter {
  wake(): void {
    this.emit("wake");
  }
}

/** What request handlers and workers share; built once in main (or per test). */
export interface Services {
  config: Config;
  db: Database;
  processor: Processor;
  outbox: OutboxSignal;
  metrics: Metrics;
  merchantAuth: MerchantAuthenticator;
}
