-- The tables that grow with every event become partitioned by week (Monday 00:00 UTC), so a week
-- past its retention is dropped whole instead of deleted row by row (docs/operations.md, "Data
-- lifetime"). Each existing table becomes the partition `<table>_history`, which holds every row
-- from before next Monday; the service keeps weekly partitions made ahead from there on
-- (src/db/partitions.ts).
--
-- A partitioned table's unique keys carry its time column, so the foreign keys that pointed at an
-- event or a delivery by its id alone go: the outbox writes an event and its delivery in one
-- statement, and a delivery carries its event's time (`event_created_at`), which places it in the
-- event's week: they are dropped together. An event's own keys to its payment and group go too:
-- each new week's partition would take a lock on `payments` to check them, stalling the creates,
-- and an event is written in the transaction of its payment's change (payments and groups are
-- never deleted).

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
ALTER TABLE receipt_emails DROP CONSTRAINT receipt_emails_event_id_fkey;
-- Receipts stay one table (one row per receipt sent, a small share of events) and are pruned by age.
CREATE INDEX receipt_emails_created_idx ON receipt_emails (created_at);

-- Events.
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_pkey;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_payment_id_fkey;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_group_id_fkey;
ALTER TABLE webhook_events RENAME TO webhook_events_history;
ALTER INDEX webhook_events_payment_idx RENAME TO webhook_events_history_payment_idx;
ALTER INDEX webhook_events_group_idx RENAME TO webhook_events_history_group_idx;
ALTER INDEX webhook_events_created_idx RENAME TO webhook_events_history_created_idx;
CREATE TABLE webhook_events (
  id uuid NOT NULL,
  payment_id uuid NOT NULL,
  group_id uuid NOT NULL,
  event text NOT NULL,
  status text NOT NULL,
  payload json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
CREATE INDEX webhook_events_payment_idx ON webhook_events (payment_id, created_at);
CREATE INDEX webhook_events_group_idx ON webhook_events (group_id, created_at, id);
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

-- Deliveries, in their event's week.
ALTER TABLE webhook_deliveries ADD COLUMN event_created_at timestamptz;
UPDATE webhook_deliveries d SET event_created_at = e.created_at
FROM webhook_events_history e WHERE e.id = d.event_id;
ALTER TABLE webhook_deliveries ALTER COLUMN event_created_at SET NOT NULL;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_history;
ALTER INDEX webhook_deliveries_due_idx RENAME TO webhook_deliveries_history_due_idx;
ALTER INDEX webhook_deliveries_event_idx RENAME TO webhook_deliveries_history_event_idx;
ALTER INDEX webhook_deliveries_failed_idx RENAME TO webhook_deliveries_history_failed_idx;
CREATE TABLE webhook_deliveries (
  id uuid NOT NULL,
  event_id uuid NOT NULL,
  -- The previous version, serving beside this one during a rolling upgrade, does not name it: it
  -- writes a delivery in its event's transaction, so now() is the event's time.
  event_created_at timestamptz NOT NULL DEFAULT now(),
  url text NOT NULL,
  destination text NOT NULL,
  state text NOT NULL CONSTRAINT webhook_deliveries_state_check CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  sent_timestamp text,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (id, event_created_at)
) PARTITION BY RANGE (event_created_at);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (completed_at) WHERE state = 'failed';

-- Attempt logs, by when they were made (WEBHOOK_ATTEMPT_RETENTION_DAYS).
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
ALTER TABLE webhook_attempts RENAME TO webhook_attempts_history;
ALTER INDEX webhook_attempts_delivery_idx RENAME TO webhook_attempts_history_delivery_idx;
ALTER INDEX webhook_attempts_attempted_idx RENAME TO webhook_attempts_history_attempted_idx;
CREATE TABLE webhook_attempts (
  id bigint NOT NULL DEFAULT nextval('webhook_attempts_id_seq'),
  delivery_id uuid NOT NULL,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  answer text,
  PRIMARY KEY (id, attempted_at)
) PARTITION BY RANGE (attempted_at);
ALTER SEQUENCE webhook_attempts_id_seq OWNED BY webhook_attempts.id;
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at);

-- Processor events. Replays are still caught across weeks: the insert looks first, under a lock
-- on the event's id (src/payments/processor-events/store.ts).
ALTER TABLE processor_events DROP CONSTRAINT processor_events_pkey;
ALTER TABLE processor_events RENAME TO processor_events_history;
ALTER INDEX processor_events_received_idx RENAME TO processor_events_history_received_idx;
CREATE TABLE processor_events (
  processor text NOT NULL,
  id text NOT NULL,
  type text NOT NULL,
  payment_id uuid,
  mismatch text,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (processor, id, received_at)
) PARTITION BY RANGE (received_at);
CREATE INDEX processor_events_received_idx ON processor_events (received_at);

-- The audit log. Its id came from an identity column, which a partitioned table on PostgreSQL 15
-- cannot have: a sequence that goes on from the last id instead.
ALTER TABLE audit_log ALTER COLUMN id DROP IDENTITY;
CREATE SEQUENCE audit_log_id_seq;
SELECT setval('audit_log_id_seq', COALESCE((SELECT max(id) FROM audit_log), 0) + 1, false);
ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey;
ALTER TABLE audit_log RENAME TO audit_log_history;
ALTER INDEX audit_log_group_idx RENAME TO audit_log_history_group_idx;
ALTER INDEX audit_log_created_idx RENAME TO audit_log_history_created_idx;
CREATE TABLE audit_log (
  id bigint NOT NULL DEFAULT nextval('audit_log_id_seq'),
  group_id uuid,
  actor text NOT NULL,
  action text NOT NULL,
  target text,
  detail json,
  address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
ALTER SEQUENCE audit_log_id_seq OWNED BY audit_log.id;
CREATE INDEX audit_log_group_idx ON audit_log (group_id, id);
CREATE INDEX audit_log_created_idx ON audit_log (created_at);

-- Each old table holds everything before next Monday (a scan checks that as it attaches); its new
-- primary key, with the time column, is built as it does.
DO $$
DECLARE
  next_week timestamptz := (date_trunc('week', now() AT TIME ZONE 'UTC') + interval '7 days') AT TIME ZONE 'UTC';
  name text;
BEGIN
  FOREACH name IN ARRAY ARRAY['webhook_events', 'webhook_deliveries', 'webhook_attempts', 'processor_events', 'audit_log']
  LOOP
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
      name, name || '_history', next_week);
  END LOOP;
END $$;
