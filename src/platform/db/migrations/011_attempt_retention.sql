-- Attempt logs are pruned by age (WEBHOOK_ATTEMPT_RETENTION_DAYS), oldest first, in batches.
CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at);
