-- A group's earlier signing secrets, each kept until its own expiry: a second rotation inside the
-- first one's grace no longer drops the first secret. [{"secret": sealed, "expiresAt": time}, …]
ALTER TABLE groups ADD COLUMN previous_webhook_secrets jsonb NOT NULL DEFAULT '[]'::jsonb;

UPDATE groups SET previous_webhook_secrets = jsonb_build_array(
    jsonb_build_object('secret', previous_webhook_secret, 'expiresAt', previous_webhook_secret_expires_at))
  WHERE previous_webhook_secret IS NOT NULL AND previous_webhook_secret_expires_at > now();

ALTER TABLE groups DROP COLUMN previous_webhook_secret, DROP COLUMN previous_webhook_secret_expires_at;
