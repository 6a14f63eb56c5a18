-- Refunds asked for through the API, and refunds learnt from the processor's events.
CREATE TABLE refunds (
  id uuid PRIMARY KEY,
  -- Creation order, stable within one transaction.
  position bigint GENERATED ALWAYS AS IDENTITY,
  payment_id uuid NOT NULL REFERENCES payments (id),
  group_id uuid NOT NULL REFERENCES groups (id),
  amount integer NOT NULL CHECK (amount >= 1),
  currency text NOT NULL,
  reason text CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent')),
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  processor_refund_id text,
  -- Who asked: "api_key:pk_…", "processor" (made at the processor), later a dashboard user.
  requested_by text NOT NULL,
  failure_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_payment_idx ON refunds (payment_id, position);

-- Money promised back: succeeded and pending refunds. A refund reserves its amount here with a
-- conditional update, so concurrent refunds can never together exceed the payment.
ALTER TABLE payments ADD COLUMN refund_reserved integer NOT NULL DEFAULT 0;
ALTER TABLE payments ADD CONSTRAINT payments_refund_reserved_check CHECK (refund_reserved BETWEEN 0 AND amount);
