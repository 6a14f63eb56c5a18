-- A processor's event ids are unique among its own events only: two processors may both send an
-- event "evt_1", and each must still be applied once.
ALTER TABLE processor_events ADD COLUMN processor text NOT NULL DEFAULT 'stripe';
ALTER TABLE processor_events ALTER COLUMN processor DROP DEFAULT;
ALTER TABLE processor_events DROP CONSTRAINT processor_events_pkey;
ALTER TABLE processor_events ADD PRIMARY KEY (processor, id);

-- Reconciliation kinds are named for what happened, not for one processor's object.
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_kind_check;
UPDATE reconciliation_items SET kind = 'checkout_missing' WHERE kind = 'missing_session';
ALTER TABLE reconciliation_items ADD CONSTRAINT reconciliation_items_kind_check CHECK (kind IN (
  'paid_after_cancel', 'paid_after_expiry', 'disputed_after_close', 'checkout_missing',
  'processor_mismatch', 'drift'));

-- A checkout id is unique at its own processor.
ALTER TABLE payments DROP CONSTRAINT payments_processor_session_id_key;
ALTER TABLE payments ADD CONSTRAINT payments_processor_checkout_key UNIQUE (processor, processor_checkout_id);
