-- Merchants: a group owns SafeSites (payment domains), API key pairs and a webhook signing secret.
CREATE TABLE groups (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  webhook_secret text NOT NULL,
  -- Kept during a rotation's grace period so receivers still verify with the old secret.
  previous_webhook_secret text,
  previous_webhook_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE safe_sites (
  id uuid PRIMARY KEY,
  -- Creation order, stable even for sites made in one transaction (they share now()).
  position bigint GENERATED ALWAYS AS IDENTITY,
  group_id uuid NOT NULL REFERENCES groups (id),
  name text NOT NULL,
  url text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX safe_sites_group_idx ON safe_sites (group_id, position);

CREATE TABLE api_keys (
  public_key text PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES groups (id),
  -- SHA-256 of the secret key: the secret is 256 random bits, so a slow hash adds nothing.
  secret_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_group_idx ON api_keys (group_id);

-- Service-wide values such as the admin token's hash.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE payments (
  id uuid PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES groups (id),
  status text NOT NULL CHECK (status IN (
    'pending', 'processing', 'succeeded', 'failed', 'expired', 'cancelled',
    'refunded', 'partially_refunded', 'disputed', 'dispute_won', 'dispute_lost'
  )),
  amount integer NOT NULL CHECK (amount BETWEEN 1 AND 99999999),
  currency text NOT NULL CHECK (currency IN ('usd', 'cad')),
  customer_email text NOT NULL,
  customer_name text,
  description text,
  metadata jsonb,
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  webhook_url text,
  safe_site_id uuid NOT NULL REFERENCES safe_sites (id),
  safe_site_url text NOT NULL,
  -- Opaque, unguessable token of the hosted link (/pay/:token) and the return path (/return/:token).
  link_token text NOT NULL UNIQUE,
  processor_session_id text UNIQUE,
  processor_checkout_url text,
  processor_payment_intent_id text,
  refunded_amount integer NOT NULL DEFAULT 0,
  -- Set when the processor reports money taken on a payment the merchant had cancelled.
  needs_reconciliation boolean NOT NULL DEFAULT false,
  reconciliation_reason text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX payments_group_idx ON payments (group_id, created_at);
CREATE INDEX payments_due_expiry_idx ON payments (expires_at) WHERE status = 'processing';
CREATE INDEX payments_reconciliation_idx ON payments (created_at) WHERE needs_reconciliation;
CREATE INDEX payments_payment_intent_idx ON payments (processor_payment_intent_id);

-- Audit trail: one row per status change, written in the transaction of the change.
CREATE TABLE payment_status_changes (
  id bigserial PRIMARY KEY,
  payment_id uuid NOT NULL REFERENCES payments (id),
  from_status text,
  to_status text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_status_changes_payment_idx ON payment_status_changes (payment_id, id);

CREATE TABLE idempotency_keys (
  group_id uuid NOT NULL REFERENCES groups (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  -- Null while the first request is still running.
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, key)
);

-- Processor events already applied, so a replay is acknowledged without being applied twice.
CREATE TABLE processor_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  payment_id uuid,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Transactional outbox: events and their deliveries are written with the status change.
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL REFERENCES payments (id),
  group_id uuid NOT NULL REFERENCES groups (id),
  event text NOT NULL,
  status text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_payment_idx ON webhook_events (payment_id, created_at);
CREATE INDEX webhook_events_group_idx ON webhook_events (group_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES webhook_events (id),
  url text NOT NULL,
  destination text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A claimed delivery is invisible to other dispatchers until this passes (crash recovery).
  locked_until timestamptz,
  -- The body `timestamp`, fixed at the first attempt so retries repeat it.
  sent_timestamp text,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (completed_at) WHERE state = 'failed';

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id),
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
