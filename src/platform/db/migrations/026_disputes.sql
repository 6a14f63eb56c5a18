-- A payment's disputes as the processor reports them, in the service's words, and what the
-- merchant did about each. Bookkeeping, kept with the payment.
CREATE TABLE disputes (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL REFERENCES payments (id),
  group_id uuid NOT NULL REFERENCES groups (id),
  processor text NOT NULL,
  processor_dispute_id text NOT NULL,
  amount integer NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('fraudulent', 'product_not_received', 'product_unacceptable',
    'duplicate', 'credit_not_processed', 'unrecognized', 'general')),
  status text NOT NULL CHECK (status IN ('needs_response', 'under_review', 'won', 'lost', 'accepted')),
  evidence_due_by timestamptz,
  evidence_submitted_at timestamptz,
  -- A submission or an acceptance the processor did not answer: it may have happened. The next
  -- read of the dispute at the processor settles it; until then nothing is asked again.
  pending_action text CHECK (pending_action IN ('submit', 'accept')),
  pending_since timestamptz,
  -- The owners' e-mails, each sent once: when the dispute opened, and 72 hours before its deadline.
  opened_notice_at timestamptz,
  deadline_notice_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (processor, processor_dispute_id),
  CHECK ((pending_action IS NULL) = (pending_since IS NULL))
);
-- The inbox: a group's open disputes, soonest deadline first.
CREATE INDEX disputes_open_idx ON disputes (group_id, evidence_due_by, id)
  WHERE status IN ('needs_response', 'under_review');
CREATE INDEX disputes_payment_idx ON disputes (payment_id, created_at);
-- What the settling worker and the e-mails look at.
CREATE INDEX disputes_pending_idx ON disputes (pending_since) WHERE pending_action IS NOT NULL;
CREATE INDEX disputes_deadline_notice_idx ON disputes (evidence_due_by)
  WHERE status = 'needs_response' AND deadline_notice_at IS NULL;
CREATE INDEX disputes_opened_notice_idx ON disputes (created_at)
  WHERE status = 'needs_response' AND opened_notice_at IS NULL;
