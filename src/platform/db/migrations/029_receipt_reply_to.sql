-- Where a customer's reply to a receipt goes: the merchant's own address, set under Branding. The
-- merchant's, not a customer's: it lives as long as the group.
ALTER TABLE groups ADD COLUMN reply_to text CHECK (char_length(reply_to) <= 254);
