-- Payment links a merchant makes without code, the group's own webhook URL, the branding of the
-- customer's pages, and e-mail receipts.

-- A reusable link: a fixed amount, or the customer's choice between two bounds.
CREATE TABLE payment_links (
  id uuid PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES groups (id),
  -- The unguessable part of /l/<slug>.
  slug text NOT NULL UNIQUE,
  -- The SafeSite the link was made on: it keeps working there, as a payment's link does.
  site_url text NOT NULL,
  name text NOT NULL,
  currency text NOT NULL CHECK (currency = lower(currency)),
  amount bigint CHECK (amount > 0),
  min_amount bigint CHECK (min_amount > 0),
  max_amount bigint,
  description text,
  success_url text,
  metadata jsonb,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (
    (amount IS NOT NULL AND min_amount IS NULL AND max_amount IS NULL)
    OR (amount IS NULL AND min_amount IS NOT NULL AND max_amount >= min_amount)
  )
);
CREATE INDEX payment_links_group_idx ON payment_links (group_id, created_at DESC, id DESC);

ALTER TABLE payments ADD COLUMN payment_link_id uuid REFERENCES payment_links (id);
CREATE INDEX payments_payment_link_idx ON payments (payment_link_id, created_at DESC, id DESC)
  WHERE payment_link_id IS NOT NULL;

ALTER TABLE groups
  -- Events of payments without a webhookUrl of their own go here; delivery_url is the same URL
  -- when it passed the unreachable-host rule as it was set, else null (kept for the feed only).
  ADD COLUMN webhook_url text,
  ADD COLUMN webhook_delivery_url text,
  ADD COLUMN display_name text,
  ADD COLUMN brand_color text CHECK (brand_color ~ '^#[0-9a-f]{6}$'),
  ADD COLUMN logo bytea,
  ADD COLUMN logo_type text CHECK (logo_type IN ('image/png', 'image/jpeg')),
  ADD COLUMN receipts boolean NOT NULL DEFAULT false;

-- One receipt per event at most (its key), written in the transaction of the change it tells of.
-- Claimed (sending) before the mail goes out and never claimed again: a crash mid-send loses a
-- receipt rather than sending it twice.
CREATE TABLE receipt_emails (
  event_id uuid PRIMARY KEY REFERENCES webhook_events (id),
  payment_id uuid NOT NULL REFERENCES payments (id),
  group_id uuid NOT NULL REFERENCES groups (id),
  kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
  recipient text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX receipt_emails_due_idx ON receipt_emails (next_attempt_at) WHERE state = 'pending';

-- A create names the group in the processor's line item from each instance's cache of routes: a
-- new name or display name must reach them as a change of routes does.
CREATE FUNCTION notify_group_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('processor_routes_changed', NEW.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER group_renamed AFTER UPDATE OF name, display_name ON groups
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.display_name IS DISTINCT FROM NEW.display_name)
  EXECUTE FUNCTION notify_group_renamed();
