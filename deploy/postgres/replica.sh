#!/usr/bin/env bash
# The streaming replica's start: at the first one, a base backup of the primary with -R (which
# writes primary_conninfo and standby.signal), then PostgreSQL as a hot standby. Its
# application_name, "replica", is what POSTGRES_SYNCHRONOUS_STANDBY names on the primary.
set -euo pipefail
export PGDATA=${PGDATA:-/var/lib/postgresql/data}
mkdir -p "$PGDATA"
chown postgres "$PGDATA"
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until gosu postgres env PGPASSWORD="$POSTGRES_PASSWORD" pg_basebackup \
    --dbname="host=$PRIMARY_HOST user=$POSTGRES_USER application_name=replica" \
    --pgdata="$PGDATA" --write-recovery-conf --wal-method=stream --checkpoint=fast; do
    echo "waiting for the primary at $PRIMARY_HOST"
    sleep 2
    rm -rf "${PGDATA:?}"/*
  done
fi
# Promoted one day, it must not wait for a standby of its own.
exec gosu postgres postgres -c synchronous_standby_names=
