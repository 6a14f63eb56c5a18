-- The request whose change queued a delivery, as a W3C traceparent, while traces are on: each
-- attempt's span links to it (docs/operations.md, "Traces"). NULL otherwise.
ALTER TABLE webhook_deliveries ADD COLUMN traceparent text;
