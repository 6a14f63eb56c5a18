-- A create attempt given up after an unknown outcome: the processor may have opened a
-- checkout whose answer was lost. Kept with its idempotency key and request, so the service can
-- ask again with the same key and close whatever it opened.
CREATE TABLE abandoned_checkouts (
  id bigserial PRIMARY KEY,
  processor text NOT NULL,
  idempotency_key text NOT NULL,
  transaction_id uuid NOT NULL,
  group_id uuid NOT NULL REFERENCES groups (id),
  request jsonb NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('timeout', 'connection', 'server_error', 'rate_limited')),
  created_at timestamptz NOT NULL DEFAULT now(),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  checkout_id text,
  payment_ref text,
  closed_at timestamptz,
  resolution text CHECK (resolution IN ('closed', 'in_use', 'paid', 'refused')),
  -- The operator's full refund of money taken on it (resolution 'paid'), claimed while asked for.
  refund_ref text,
  refund_claimed_until timestamptz,
  UNIQUE (processor, idempotency_key)
);
CREATE INDEX abandoned_checkouts_due_idx ON abandoned_checkouts (next_attempt_at) WHERE closed_at IS NULL;

-- The processors a payment's create tried before the one that issued its link, and why each was
-- passed over: [{"processor": "stripe", "reason": "timeout"}, …].
ALTER TABLE payments ADD COLUMN processor_failovers jsonb;

-- Money taken on an abandoned checkout belongs to no payment: the operator refunds it in full.
ALTER TABLE reconciliation_items ADD COLUMN abandoned_checkout_id bigint REFERENCES abandoned_checkouts (id);
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_kind_check;
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_kind_check CHECK (kind IN (
  'paid_after_cancel', 'paid_after_expiry', 'disputed_after_close', 'checkout_missing',
  'processor_mismatch', 'drift', 'orphan_checkout_paid'));
CREATE UNIQUE INDEX reconciliation_items_orphan_idx ON reconciliation_items (abandoned_checkout_id)
  WHERE abandoned_checkout_id IS NOT NULL;
