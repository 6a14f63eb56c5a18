-- People who sign in to pages: merchant users (one group, one role) and operators.
CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('merchant', 'operator')),
  group_id uuid REFERENCES groups (id),
  role text CHECK (role IN ('owner', 'developer', 'viewer')),
  email text NOT NULL,
  -- scrypt, "scrypt$N$r$p$salt$hash"; null until the invite is accepted.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz,
  CHECK ((kind = 'merchant') = (group_id IS NOT NULL AND role IS NOT NULL))
);
-- The sign-in form names an email only, so an email is one account per audience.
CREATE UNIQUE INDEX accounts_email_idx ON accounts (kind, lower(email)) WHERE removed_at IS NULL;
CREATE INDEX accounts_group_idx ON accounts (group_id);

-- Single-use invite links; only the token's SHA-256 is kept.
CREATE TABLE account_invites (
  token_hash text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_invites_account_idx ON account_invites (account_id);

-- Signed-in sessions, kept server-side so signing out and revoking end them everywhere.
CREATE TABLE web_sessions (
  id uuid PRIMARY KEY,
  -- SHA-256 of the cookie's session id: a copy of this table signs nobody in.
  id_hash text NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  data json NOT NULL,
  address text NOT NULL,
  user_agent text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_account_idx ON web_sessions (account_id);

-- Failed sign-ins, per account ("kind:email", known or not) and per address, for throttling.
CREATE TABLE sign_in_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account text NOT NULL,
  address text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_account_idx ON sign_in_failures (account, failed_at);
CREATE INDEX sign_in_failures_address_idx ON sign_in_failures (address, failed_at);
CREATE TABLE sign_in_locks (
  account text PRIMARY KEY,
  locked_until timestamptz NOT NULL
);

-- Every action taken through the pages and the admin API: who, what, when, from where.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  group_id uuid,
  actor text NOT NULL,
  action text NOT NULL,
  target text,
  detail json,
  address text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_group_idx ON audit_log (group_id, id);

-- An operator closes a reconciliation item with a note.
ALTER TABLE payments ADD COLUMN reconciliation_note text;
ALTER TABLE processor_events ADD COLUMN resolved_at timestamptz, ADD COLUMN resolution_note text;
DROP INDEX processor_events_mismatch_idx;
CREATE INDEX processor_events_mismatch_idx ON processor_events (received_at)
  WHERE mismatch IS NOT NULL AND resolved_at IS NULL;

-- The dashboard's payment list: newest first within a group, by status or by customer email.
CREATE INDEX payments_group_listing_idx ON payments (group_id, created_at DESC, id DESC);
CREATE INDEX payments_group_status_idx ON payments (group_id, status, created_at DESC, id DESC);
CREATE INDEX payments_group_email_idx ON payments (group_id, lower(customer_email), created_at DESC, id DESC);
DROP INDEX payments_group_idx;
