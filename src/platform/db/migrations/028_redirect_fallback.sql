-- A payment whose successUrl or cancelUrl the unreachable-host rule refused at create: the customer
-- is sent to FALLBACK_URL (or the payment's /done page) instead, and the payment says so.
ALTER TABLE payments ADD COLUMN redirect_fallback boolean NOT NULL DEFAULT false;
