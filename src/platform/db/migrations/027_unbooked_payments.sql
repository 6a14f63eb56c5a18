-- A paid checkout at a processor carrying a transaction id we have no payment for: what a primary
-- lost with asynchronous commit leaves behind. Found by reconciliation runs; the operator gives the
-- money back in full. Bookkeeping, kept.
CREATE TABLE unbooked_checkouts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  processor text NOT NULL,
  -- The processor's id of the checkout (Square: its order).
  checkout_id text NOT NULL,
  -- As the processor carries it: not a payment of ours.
  transaction_id uuid NOT NULL,
  payment_ref text,
  amount integer NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  -- Given back at the processor already, by the processor's own record.
  refunded_amount integer NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  checkout_created_at timestamptz NOT NULL,
  found_at timestamptz NOT NULL DEFAULT now(),
  refund_ref text,
  refund_claimed_until timestamptz,
  UNIQUE (processor, checkout_id)
);

ALTER TABLE reconciliation_items ADD COLUMN unbooked_checkout_id bigint REFERENCES unbooked_checkouts (id);
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_kind_check;
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_kind_check CHECK (kind IN (
  'paid_after_cancel', 'paid_after_expiry', 'disputed_after_close', 'checkout_missing',
  'processor_mismatch', 'drift', 'orphan_checkout_paid', 'unbooked_payment'));
CREATE UNIQUE INDEX reconciliation_items_unbooked_idx ON reconciliation_items (unbooked_checkout_id)
  WHERE unbooked_checkout_id IS NOT NULL;
