-- A group's webhook endpoints: each its URL, the events it takes, its own signing secret (sealed)
-- and earlier ones still signing during a rotation's grace, and whether it is enabled. At most 16 a
-- group (checked under the group's row lock when one is added).
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES groups (id),
  url text NOT NULL,
  destination text NOT NULL,
  events text[] NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('failing', 'disabled')),
  secret text NOT NULL,
  previous_secrets jsonb NOT NULL DEFAULT '[]',
  -- The first failed attempt since the last success: past WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS the
  -- endpoint is disabled.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhook_endpoints_group_idx ON webhook_endpoints (group_id, created_at);

-- A delivery to an endpoint is signed with the endpoint's secrets; null: the payment's or the
-- group's URL, signed with the group's.
ALTER TABLE webhook_deliveries ADD COLUMN endpoint_id uuid;
-- An endpoint's deliveries, newest first: its last attempts and its day's success rate.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at)
  WHERE endpoint_id IS NOT NULL;

-- `webhook.test` belongs to no payment.
ALTER TABLE webhook_events ALTER COLUMN payment_id DROP NOT NULL;
