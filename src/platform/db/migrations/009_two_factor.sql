-- Two-factor sign-in (TOTP, RFC 6238) with single-use recovery codes.
-- Secrets are sealed with SECRETS_KEY (src/crypto/secret-box.ts), never kept in plain text.
ALTER TABLE accounts ADD COLUMN totp_secret text;
-- Shown on the account page until a code confirms it.
ALTER TABLE accounts ADD COLUMN totp_pending_secret text;
ALTER TABLE accounts ADD COLUMN totp_enabled_at timestamptz;
-- The last 30-second step a code was accepted for: a code is never accepted twice.
ALTER TABLE accounts ADD COLUMN totp_last_step bigint;

CREATE TABLE recovery_codes (
  account_id uuid NOT NULL REFERENCES accounts (id),
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (account_id, code_hash)
);

-- Between the right password and the second factor: a short-lived, single-use challenge.
CREATE TABLE sign_in_challenges (
  token_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  expires_at timestamptz NOT NULL
);

-- An owner can require two-factor sign-in for every user of the group.
ALTER TABLE groups ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;
