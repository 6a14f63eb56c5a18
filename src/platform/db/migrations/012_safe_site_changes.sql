-- Every instance keeps each group's active SafeSites in memory for creates. Any change to a
-- group's sites, by whatever path (API, dashboard, console, an operator's SQL), tells them all.
CREATE FUNCTION notify_safe_sites_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('safe_sites_changed', OLD.group_id::text);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('safe_sites_changed', NEW.group_id::text);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER safe_sites_changed AFTER INSERT OR UPDATE OR DELETE ON safe_sites
  FOR EACH ROW EXECUTE FUNCTION notify_safe_sites_changed();
