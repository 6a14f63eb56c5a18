-- A pending two-factor secret belongs to the session that asked for it (its id's digest): no other
-- session of the account is shown it, or may confirm it.
ALTER TABLE accounts ADD COLUMN totp_pending_session text;
