// What the service forgets: customers erased on request or after PII_RETENTION_DAYS, and every
// record past its retention pruned.

import type { Config } from "../config/config.ts";
import type { RecordsElsewhere } from "../payments/core/records-elsewhere.ts";
import type { Clock } from "../platform/clock.ts";
import type { Database } from "../platform/db/database.ts";
import { startPeriodic, type Worker } from "../platform/jobs/periodic.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { CustomerErasure } from "./erasure/service.ts";
import { startPruning } from "./pruning.ts";

export interface Privacy {
  /** Customers erased on request, and by PII_RETENTION_DAYS. */
  erasure: CustomerErasure;
}

export function createPrivacy(options: {
  db: Database;
  /** A keyed hash of an e-mail address, for the erasure's audit entry. */
  digest: (email: string) => string;
  recordsElsewhere?: RecordsElsewhere | undefined;
  log: Logger;
}): Privacy {
  return { erasure: new CustomerErasure(options.db, options.digest, options.recordsElsewhere, options.log) };
}

/** Pruning (each retention setting), and erasing customers of payments settled longer ago than PII_RETENTION_DAYS (hourly). */
export function startPrivacyWorkers(
  privacy: Privacy,
  db: Database,
  config: Config,
  log: Logger,
  clock: Clock,
): Worker[] {
  const workers = [startPruning(db, config, log, clock)];
  if (config.piiRetentionDays > 0) {
    const days = config.piiRetentionDays;
    workers.push(
      startPeriodic(
        "customer retention",
        3_600_000,
        () => privacy.erasure.eraseSettledBefore(days, clock.now()),
        log,
      ),
    );
  }
  return workers;
}
