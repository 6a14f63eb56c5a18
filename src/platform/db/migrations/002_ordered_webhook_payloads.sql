-- The outbox keeps each webhook body exactly as the payments module built it: `json` keeps key
-- order (the interface lists the fields in order), where `jsonb` would sort them.
ALTER TABLE webhook_events ALTER COLUMN payload TYPE json USING payload::json;
