#!/usr/bin/env bash
# A primary and its streaming replica (pg_basebackup -R), both real PostgreSQL clusters made here,
# each on its own port of a Unix socket in a new directory (no TCP), for the suite's replica run.
# Prints the directory: the primary is port 5440 there, the replica 5441.
# `bash scripts/replica-for-tests.sh stop DIR` stops both.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# PostgreSQL will not run as root: as root, everything here runs as the postgres user.
as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi; }
if [ "${1:-}" = stop ]; then
  for cluster in replica primary; do as_owner "$bin/pg_ctl -D $2/$cluster -m immediate stop" > /dev/null 2>&1 || true; done
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/checkout-replica-XXXXXX")
chmod 755 "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_owner "$bin/initdb -D $dir/primary -U postgres --auth=trust -E UTF8 --no-instructions > $dir/initdb.log"
cat >> "$dir/primary/postgresql.conf" <<CONF
listen_addresses = ''
port = 5440
unix_socket_directories = '$dir'
wal_level = replica
max_wal_senders = 5
max_connections = 300
shared_buffers = 32MB
fsync = off
CONF
as_owner "$bin/pg_ctl -D $dir/primary -l $dir/primary.log -w start > /dev/null"
as_owner "$bin/pg_basebackup -h $dir -p 5440 -U postgres -D $dir/replica -R -X stream"
echo "port = 5441" >> "$dir/replica/postgresql.conf"
as_owner "$bin/pg_ctl -D $dir/replica -l $dir/replica.log -w start > /dev/null"
echo "$dir"
