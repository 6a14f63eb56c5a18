#!/usr/bin/env bash
# A primary and its streaming replica (pg_basebackup -R), both real PostgreSQL clusters made here,
# each on its own port of a Unix socket in a new directory (no TCP), for the suite's replica run.
# Prints the directory: the primary is port 5440 there, the replica 5441.
# `bash scripts/replica-for-tests.sh stop DIR` stops both; `crash-primary DIR` and `promote DIR` are
# the failover scenario's steps. For that scenario also:
#   REPLICA_DIR            use this (empty) directory instead of a new one;
#   REPLICA_SYNCHRONOUS_COMMIT=on   the replica is a synchronous standby: a commit waits for its flush;
#   REPLICA_SYNCHRONOUS_COMMIT=off  a commit waits for nothing: neither the replica nor the local WAL;
#   REPLICA_PRIMARY_CONNINFO  how the replica reaches the primary (e.g. through a delaying proxy).
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# PostgreSQL will not run as root: as root, everything here runs as the postgres user.
as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi; }
case "${1:-}" in
  stop)
    for cluster in replica primary; do as_owner "$bin/pg_ctl -D $2/$cluster -m immediate stop" > /dev/null 2>&1 || true; done
    exit 0 ;;
  # The failover scenario: the primary dies at once (no shutdown checkpoint, no WAL sent after),
  # then the replica is promoted.
  crash-primary) as_owner "$bin/pg_ctl -D $2/primary -m immediate stop" > /dev/null; exit 0 ;;
  promote) as_owner "$bin/pg_ctl -D $2/replica -w promote" > /dev/null; exit 0 ;;
esac
dir=${REPLICA_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/checkout-replica-XXXXXX")}
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
case "${REPLICA_SYNCHRONOUS_COMMIT:-}" in
  on) echo "synchronous_standby_names = '*'" >> "$dir/primary/postgresql.conf" ;;
  off) echo "synchronous_commit = off" >> "$dir/primary/postgresql.conf" ;;
esac
as_owner "$bin/pg_ctl -D $dir/primary -l $dir/primary.log -w start > /dev/null"
as_owner "$bin/pg_basebackup -h $dir -p 5440 -U postgres -D $dir/replica -R -X stream"
# Promoted, the replica must not wait for a standby of its own.
printf "port = 5441\nsynchronous_standby_names = ''\n" >> "$dir/replica/postgresql.conf"
if [ -n "${REPLICA_PRIMARY_CONNINFO:-}" ]; then
  echo "primary_conninfo = '$REPLICA_PRIMARY_CONNINFO'" >> "$dir/replica/postgresql.auto.conf"
fi
as_owner "$bin/pg_ctl -D $dir/replica -l $dir/replica.log -w start > /dev/null"
echo "$dir"
