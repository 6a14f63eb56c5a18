-- A processor event that named a payment (by metadata) but not its own session or payment
-- intent, or whose amount or currency differ: kept, unapplied, for the operator to look at.
ALTER TABLE processor_events ADD COLUMN mismatch text;
CREATE INDEX processor_events_mismatch_idx ON processor_events (received_at) WHERE mismatch IS NOT NULL;
