// Endpoints that keep failing are disabled rather than retried for ever (docs/webhooks.md,
// "Endpoints"): the group's people are told, and the endpoint waits to be enabled again.
import type { Database } from "../platform/db/database.ts";
import { startPeriodic, type Worker } from "../platform/jobs/periodic.ts";
import type { Logger } from "../platform/telemetry/logger.ts";
import { type DisabledEndpoint, disableFailingEndpoints } from "./sql/endpoints.ts";

export type { DisabledEndpoint };

/** Looked at a few times within the disabling window, at least every minute. */
const checkEveryMs = (disableAfterMs: number) => Math.max(500, Math.min(60_000, disableAfterMs / 4));

export function startEndpointHealth(options: {
  db: Database;
  disableAfterMs: number;
  log: Logger;
  /** Tells the groups' people; a failure to tell is logged, the endpoint stays disabled. */
  onDisabled: (endpoint: DisabledEndpoint) => Promise<void>;
}): Worker {
  const { db, log } = options;
  return startPeriodic(
    "webhook endpoint health",
    checkEveryMs(options.disableAfterMs),
    async () => {
      for (const endpoint of await disableFailingEndpoints(db, options.disableAfterMs)) {
        log.warn(
          { endpointId: endpoint.id, groupId: endpoint.group_id, failingSince: endpoint.failing_since },
          "webhook endpoint disabled: every delivery failed",
        );
        await options
          .onDisabled(endpoint)
          .catch((error: Error) =>
            log.error(
              { endpointId: endpoint.id, reason: error.message },
              "could not tell the group of a disabled endpoint",
            ),
          );
      }
    },
    log,
  );
}
