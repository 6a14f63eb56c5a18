-- Which instance is dropping a partitioned table's weeks, until when. DETACH ... CONCURRENTLY
-- commits between its two steps, so no transaction's lock can cover it: two instances dropping the
-- same week at once would each finish or drop what the other is still detaching. One row a
-- partitioned table.
CREATE TABLE partition_leases (
  table_name text PRIMARY KEY,
  holder uuid NOT NULL,
  held_until timestamptz NOT NULL
);
