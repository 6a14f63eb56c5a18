-- What the service keeps, for how long, and how it forgets (docs/operations.md, "Data lifetime").

-- An erased payment keeps its bookkeeping and loses its customer: the e-mail becomes NULL.
ALTER TABLE payments ALTER COLUMN customer_email DROP NOT NULL;
ALTER TABLE payments ADD COLUMN erased_at timestamptz;
-- PII_RETENTION_DAYS walks the payments not yet erased, oldest change first.
CREATE INDEX payments_not_erased_idx ON payments (updated_at) WHERE erased_at IS NULL;

-- A receipt for an erased customer keeps its amount and outcome, not the address.
ALTER TABLE receipt_emails ALTER COLUMN recipient DROP NOT NULL;

-- Pruning walks each table oldest first, a batch per statement.
CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);
CREATE INDEX processor_events_received_idx ON processor_events (received_at);
CREATE INDEX audit_log_created_idx ON audit_log (created_at);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);
CREATE INDEX sandbox_objects_updated_idx ON sandbox_objects (updated_at);
