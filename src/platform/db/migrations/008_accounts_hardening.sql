-- Accounts you can trust: one account per e-mail address however it is written, sessions that a
-- password change ends for good, and password-check budgets taken before the slow hash.

-- The address as the service compares it (NFKC, lower case), written by the service on insert.
ALTER TABLE accounts ADD COLUMN email_canonical text;
UPDATE accounts SET email_canonical = lower(normalize(btrim(email), NFKC));
ALTER TABLE accounts ALTER COLUMN email_canonical SET NOT NULL;
DROP INDEX accounts_email_idx;
CREATE UNIQUE INDEX accounts_email_idx ON accounts (kind, email_canonical) WHERE removed_at IS NULL;

-- A session is valid only for the password it was signed in with: the first 32 hex digits of the
-- SHA-256 of the account's password hash at sign-in. Changing or resetting the password ends
-- every session made before, including one written late by a request that was in flight.
ALTER TABLE web_sessions ADD COLUMN credential_tag text NOT NULL DEFAULT '';
UPDATE web_sessions s SET credential_tag = left(encode(sha256(convert_to(a.password_hash, 'UTF8')), 'hex'), 32)
  FROM accounts a WHERE a.id = s.account_id AND a.password_hash IS NOT NULL;
ALTER TABLE web_sessions ALTER COLUMN credential_tag DROP DEFAULT;

-- Password checks per account and per client address: taken atomically before the hash is
-- checked, so a burst of parallel guesses gets no more checks than the limit.
CREATE TABLE password_check_budgets (
  key text PRIMARY KEY,
  window_started timestamptz NOT NULL,
  used integer NOT NULL,
  locked_until timestamptz
);
DROP TABLE sign_in_locks;
DROP TABLE sign_in_failures;

-- Password resets: single use, one hour; only the token's SHA-256 is kept.
CREATE TABLE password_resets (
  token_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_account_idx ON password_resets (account_id);
