-- A group's processor routes, in order: the first whose currency matches a payment's (or that has
-- none) names the processors to try, in turn. No rows: the installation's default route.
CREATE TABLE processor_routes (
  group_id uuid NOT NULL REFERENCES groups(id),
  position integer NOT NULL,
  currency text CHECK (currency = lower(currency)),
  processors text[] NOT NULL CHECK (cardinality(processors) > 0),
  PRIMARY KEY (group_id, position)
);

-- Every instance keeps each group's routes in memory for creates; any change tells them all.
CREATE FUNCTION notify_processor_routes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('processor_routes_changed', COALESCE(NEW.group_id, OLD.group_id)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER processor_routes_changed AFTER INSERT OR UPDATE OR DELETE ON processor_routes
  FOR EACH ROW EXECUTE FUNCTION notify_processor_routes_changed();
