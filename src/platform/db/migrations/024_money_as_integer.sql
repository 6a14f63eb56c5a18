-- One column type for money: integer minor units, as payments and refunds have had from the start.
-- No amount may pass 99,999,999 (the API's limit, and the links' own), so every value fits, and
-- every store reads a money column as a number without converting it.
ALTER TABLE payment_links
  ALTER COLUMN amount TYPE integer,
  ALTER COLUMN min_amount TYPE integer,
  ALTER COLUMN max_amount TYPE integer;
ALTER TABLE receipt_emails ALTER COLUMN amount TYPE integer;
