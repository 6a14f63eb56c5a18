// A group's webhook endpoints: added (within the group's limit), read, changed, removed, and their
// signing secrets rotated.
import type { Queryable } from "../../platform/db/database.ts";

export interface EndpointRow {
  id: string;
  group_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: "failing" | "disabled" | null;
  created_at: Date;
}

const COLUMNS = "id, group_id, url, events, description, enabled, disabled_reason, created_at";

export interface NewEndpoint {
  id: string;
  groupId: string;
  url: string;
  destination: string;
  events: string[];
  description: string | null;
  /** Sealed. */
  secret: string;
}

/**
 * Adds an endpoint unless the group has `limit` already. Run inside a transaction: the group's
 * row is locked first, and the count is read by the next statement, whose snapshot is taken after
 * the lock, so two adds at once cannot both take the last place. Undefined when the group is full.
 */
export async function insertEndpoint(
  tx: Queryable,
  endpoint: NewEndpoint,
  limit: number,
): Promise<EndpointRow | undefined> {
  await tx.query("SELECT id FROM groups WHERE id = $1 FOR UPDATE", [endpoint.groupId]);
  const [row] = await tx.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, group_id, url, destination, events, description, secret)
     SELECT $1, $2, $3, $4, $5, $6, $7
     WHERE EXISTS (SELECT 1 FROM groups WHERE id = $2)
       AND (SELECT count(*) FROM webhook_endpoints WHERE group_id = $2) < $8
     RETURNING ${COLUMNS}`,
    [
      endpoint.id,
      endpoint.groupId,
      endpoint.url,
      endpoint.destination,
      endpoint.events,
      endpoint.description,
      endpoint.secret,
      limit,
    ],
  );
  return row;
}

export function listEndpoints(q: Queryable, groupId: string): Promise<EndpointRow[]> {
  return q.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE group_id = $1 ORDER BY created_at, id`,
    [groupId],
  );
}

export async function findEndpoint(
  q: Queryable,
  groupId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  const [row] = await q.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE group_id = $1 AND id = $2`,
    [groupId, id],
  );
  return row;
}

export interface EndpointChange {
  url?: { url: string; destination: string } | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/**
 * Changes what is given. Enabling clears the failure record, so an endpoint enabled again is
 * judged from then on; disabling by request says so, and gives up its deliveries not yet under way.
 */
export async function updateEndpoint(
  q: Queryable,
  groupId: string,
  id: string,
  change: EndpointChange,
): Promise<EndpointRow | undefined> {
  const [row] = await q.query<EndpointRow>(
    `WITH changed AS (
     UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       destination = COALESCE($4, destination),
       events = COALESCE($5, events),
       description = CASE WHEN $6 THEN $7 ELSE description END,
       enabled = COALESCE($8, enabled),
       disabled_reason = CASE
         WHEN $8 IS NULL THEN disabled_reason
         WHEN $8 THEN NULL
         WHEN enabled THEN 'disabled'
         ELSE disabled_reason END,
       failing_since = CASE WHEN $8 THEN NULL ELSE failing_since END,
       updated_at = now()
     WHERE group_id = $1 AND id = $2
     RETURNING ${COLUMNS}
     ), given_up AS (
       -- Disabled: what it has not been sent yet is not sent (enabling it again sends nothing old).
       UPDATE webhook_deliveries d SET state = 'failed', completed_at = now(), last_error = 'endpoint disabled'
       FROM changed
       WHERE $8 = false AND d.endpoint_id = changed.id AND d.state = 'pending'
         AND (d.locked_until IS NULL OR d.locked_until < now())
     )
     SELECT * FROM changed`,
    [
      groupId,
      id,
      change.url?.url ?? null,
      change.url?.destination ?? null,
      change.events ?? null,
      change.description !== undefined,
      change.description ?? null,
      change.enabled ?? null,
    ],
  );
  return row;
}

/** Removes it; its deliveries not yet made are given up with it. False for no such endpoint. */
export async function deleteEndpoint(q: Queryable, groupId: string, id: string): Promise<boolean> {
  const rows = await q.query(
    `WITH gone AS (DELETE FROM webhook_endpoints WHERE group_id = $1 AND id = $2 RETURNING id),
     given_up AS (
       UPDATE webhook_deliveries d SET state = 'failed', completed_at = now(), last_error = 'endpoint deleted'
       FROM gone WHERE d.endpoint_id = gone.id AND d.state = 'pending'
     )
     SELECT id FROM gone`,
    [groupId, id],
  );
  return rows.length > 0;
}

/**
 * A new secret; the current one keeps signing for `graceSeconds` (none: retired at once), as do
 * earlier ones until their own expiry. False for no such endpoint.
 */
export async function rotateEndpointSecret(
  q: Queryable,
  groupId: string,
  id: string,
  sealedSecret: string,
  graceSeconds: number,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE webhook_endpoints e SET secret = $3, updated_at = now(), previous_secrets = (
       SELECT COALESCE(jsonb_agg(entry ORDER BY (entry->>'expiresAt')::timestamptz), '[]'::jsonb) FROM (
         SELECT entry FROM jsonb_array_elements(e.previous_secrets) AS kept(entry)
         WHERE (entry->>'expiresAt')::timestamptz > now()
         UNION ALL
         SELECT jsonb_build_object('secret', e.secret, 'expiresAt', now() + make_interval(secs => $4))
         WHERE $4 > 0
       ) AS earlier(entry))
     WHERE group_id = $1 AND id = $2
     RETURNING id`,
    [groupId, id, sealedSecret, graceSeconds],
  );
  return rows.length > 0;
}

export interface DisabledEndpoint {
  id: string;
  group_id: string;
  url: string;
  failing_since: Date;
}

/**
 * Disables every enabled endpoint whose deliveries have all failed for `afterMs`, gives up their
 * deliveries not yet under way, and audits each, in one statement.
 */
export function disableFailingEndpoints(q: Queryable, afterMs: number): Promise<DisabledEndpoint[]> {
  return q.query<DisabledEndpoint>(
    `WITH disabled AS (
       UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = now()
       WHERE enabled AND failing_since < now() - make_interval(secs => $1::double precision / 1000)
       RETURNING id, group_id, url, failing_since
     ), given_up AS (
       UPDATE webhook_deliveries d SET state = 'failed', completed_at = now(), last_error = 'endpoint disabled'
       FROM disabled
       WHERE d.endpoint_id = disabled.id AND d.state = 'pending' AND (d.locked_until IS NULL OR d.locked_until < now())
     ), audited AS (
       INSERT INTO audit_log (group_id, actor, action, target, detail)
       SELECT group_id, 'system', 'webhook_endpoint.disabled', id::text,
         json_build_object('reason', 'failing', 'url', url, 'failingSince', failing_since)
       FROM disabled
     )
     SELECT id, group_id, url, failing_since FROM disabled`,
    [afterMs],
  );
}

export interface EndpointAttemptRow {
  endpoint_id: string;
  attempted_at: Date;
  event: string;
  status_code: number | null;
  error: string | null;
  answer: string | null;
}

/** Each endpoint's last `perEndpoint` attempts, newest first. */
export function lastEndpointAttempts(
  q: Queryable,
  endpointIds: readonly string[],
  perEndpoint: number,
): Promise<EndpointAttemptRow[]> {
  return q.query<EndpointAttemptRow>(
    `SELECT ep.id AS endpoint_id, last.attempted_at, last.event, last.status_code, last.error, last.answer
     FROM unnest($1::uuid[]) AS ep(id)
     CROSS JOIN LATERAL (
       SELECT a.attempted_at, e.event, a.status_code, a.error, a.answer
       FROM (SELECT id, event_id, event_created_at FROM webhook_deliveries
             WHERE endpoint_id = ep.id ORDER BY created_at DESC LIMIT $2) AS d
       JOIN webhook_attempts a ON a.delivery_id = d.id
       JOIN webhook_events e ON e.id = d.event_id AND e.created_at = d.event_created_at
       ORDER BY a.attempted_at DESC LIMIT $2
     ) AS last`,
    [endpointIds, perEndpoint],
  );
}

/** Each endpoint's attempts of the last 24 hours and how many were acknowledged. */
export function endpointDayTotals(
  q: Queryable,
  endpointIds: readonly string[],
): Promise<{ endpoint_id: string; attempts: number; delivered: number }[]> {
  return q.query(
    `SELECT d.endpoint_id, count(*)::int AS attempts,
       count(*) FILTER (WHERE a.status_code BETWEEN 200 AND 299)::int AS delivered
     FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
     WHERE d.endpoint_id = ANY ($1::uuid[]) AND d.created_at > now() - interval '24 hours'
       AND a.attempted_at > now() - interval '24 hours'
     GROUP BY d.endpoint_id`,
    [endpointIds],
  );
}
