-- The processor boundary: neutral column names, a processor per payment, refunds whose outcome
-- may be unknown for a while, reconciliation items and runs, claimed expiry, and the sandbox's
-- state kept with the service's data.

-- Payments name their processor, and its objects in neutral terms.
ALTER TABLE payments RENAME COLUMN processor_session_id TO processor_checkout_id;
ALTER TABLE payments RENAME COLUMN processor_payment_intent_id TO processor_payment_id;
ALTER INDEX payments_payment_intent_idx RENAME TO payments_processor_payment_idx;
ALTER TABLE payments ADD COLUMN processor text NOT NULL DEFAULT 'stripe';
-- The processor took the customer's money at some point, whatever our status says (a payment
-- paid after it was cancelled stays cancelled, and this says it was paid).
ALTER TABLE payments ADD COLUMN paid_at_processor boolean NOT NULL DEFAULT false;
UPDATE payments SET paid_at_processor = true
  WHERE needs_reconciliation OR status IN ('succeeded', 'refunded', 'partially_refunded', 'disputed',
    'dispute_won', 'dispute_lost');
-- The expiry sweeper claims a due payment until then, so instances never ask twice at once.
ALTER TABLE payments ADD COLUMN expiry_claimed_until timestamptz;
-- Reconciliation runs walk the payments changed in a window.
CREATE INDEX payments_updated_idx ON payments (updated_at);

-- What an operator must look at: one open item per payment and cause (processor events that did
-- not match their payment are one item each).
CREATE TABLE reconciliation_items (
  id bigserial PRIMARY KEY,
  payment_id uuid REFERENCES payments (id),
  kind text NOT NULL CHECK (kind IN ('paid_after_cancel', 'paid_after_expiry', 'disputed_after_close',
    'missing_session', 'processor_mismatch', 'drift')),
  detail text NOT NULL,
  processor_event_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  resolution_note text
);
CREATE UNIQUE INDEX reconciliation_items_open_idx ON reconciliation_items (payment_id, kind)
  WHERE resolved_at IS NULL AND kind <> 'processor_mismatch';
CREATE INDEX reconciliation_items_queue_idx ON reconciliation_items (id) WHERE resolved_at IS NULL;

INSERT INTO reconciliation_items (payment_id, kind, detail, created_at)
  SELECT id, CASE WHEN status = 'cancelled' THEN 'paid_after_cancel' ELSE 'paid_after_expiry' END,
    COALESCE(reconciliation_reason, 'money moved on a closed payment'), updated_at
  FROM payments WHERE needs_reconciliation;
INSERT INTO reconciliation_items (payment_id, kind, detail, processor_event_id, created_at, resolved_at,
    resolution_note)
  SELECT payment_id, 'processor_mismatch', mismatch, id, received_at, resolved_at, resolution_note
  FROM processor_events WHERE mismatch IS NOT NULL;
INSERT INTO reconciliation_items (payment_id, kind, detail, created_at, resolved_at, resolution_note)
  SELECT id, CASE WHEN status = 'cancelled' THEN 'paid_after_cancel' ELSE 'paid_after_expiry' END,
    COALESCE(reconciliation_reason, 'money moved on a closed payment'), updated_at, updated_at,
    reconciliation_note
  FROM payments WHERE NOT needs_reconciliation AND reconciliation_note IS NOT NULL;
DROP INDEX payments_reconciliation_idx;
ALTER TABLE payments DROP COLUMN needs_reconciliation, DROP COLUMN reconciliation_reason,
  DROP COLUMN reconciliation_note;
DROP INDEX processor_events_mismatch_idx;
ALTER TABLE processor_events DROP COLUMN resolved_at, DROP COLUMN resolution_note;

-- Refunds whose processor answer is unknown stay pending and are asked about again, under the
-- same processor idempotency key, from next_attempt_at on.
ALTER TABLE refunds ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN next_attempt_at timestamptz;
CREATE INDEX refunds_pending_idx ON refunds (next_attempt_at) WHERE status = 'pending';
CREATE INDEX refunds_processor_refund_idx ON refunds (processor_refund_id);

-- Idempotency keys live in scopes (creates; refunds of one payment), and keep the plan a retry
-- must carry out again as one JSON value.
ALTER TABLE idempotency_keys ADD COLUMN scope text NOT NULL DEFAULT 'create';
ALTER TABLE idempotency_keys ADD COLUMN plan jsonb;
UPDATE idempotency_keys SET plan = jsonb_build_object(
  'transactionId', transaction_id, 'linkToken', link_token, 'expiresAt', link_expires_at,
  'safeSite', CASE WHEN safe_site_id IS NULL THEN NULL
    ELSE jsonb_build_object('id', safe_site_id, 'url', safe_site_url) END);
ALTER TABLE idempotency_keys ALTER COLUMN scope DROP DEFAULT;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (group_id, scope, key);
ALTER TABLE idempotency_keys DROP COLUMN transaction_id, DROP COLUMN link_token,
  DROP COLUMN link_expires_at, DROP COLUMN safe_site_id, DROP COLUMN safe_site_url;

-- Reconciliation against the processor: each run, its figures, and the scheduled slot it filled.
CREATE TABLE reconciliation_runs (
  id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('running', 'finished')),
  since timestamptz NOT NULL,
  until timestamptz NOT NULL,
  checked integer NOT NULL DEFAULT 0,
  repaired integer NOT NULL DEFAULT 0,
  drifts integer NOT NULL DEFAULT 0,
  requested_by text NOT NULL,
  schedule_slot bigint UNIQUE,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);

-- The sandbox processor's objects (sessions, payments, refunds, …), so a restart forgets nothing.
CREATE TABLE sandbox_objects (
  id text PRIMARY KEY,
  kind text NOT NULL,
  body jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
