-- Create Payment with an Idempotency-Key fixes its plan when the key is claimed: the transaction
-- id, link token, expiry and SafeSite. A request that died half-way (a crash while the processor
-- answered) leaves the key leased but unanswered; once the lease runs out, a retry takes the key
-- over and carries out the same plan, so the processor's own idempotency returns the same session.
ALTER TABLE idempotency_keys
  ADD COLUMN transaction_id uuid,
  ADD COLUMN link_token text,
  ADD COLUMN link_expires_at timestamptz,
  ADD COLUMN safe_site_id uuid,
  ADD COLUMN safe_site_url text,
  ADD COLUMN locked_until timestamptz;
