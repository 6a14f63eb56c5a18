-- The host of a webhookUrl the unreachable-host rule dropped at create, so the dashboard can say
-- why a payment sends no webhooks ("(not a valid URL)" when it did not parse).
ALTER TABLE payments ADD COLUMN dropped_webhook_host text;
