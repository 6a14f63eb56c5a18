-- What the receiver answered to each webhook attempt (its first 512 bytes), for the attempt log:
-- "400 {"error":"bad signature"}" tells a merchant more than "400".
ALTER TABLE webhook_attempts ADD COLUMN answer text;
