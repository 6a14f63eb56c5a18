#!/usr/bin/env bash
# Starts Debian's PgBouncer in transaction pooling mode in front of the PostgreSQL server at
# 127.0.0.1:5432, on a Unix socket in a new directory, for the suite's pooled run. Prints the
# directory; `kill "$(cat DIR/pgbouncer.pid)"` stops it.
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/checkout-pgbouncer-XXXXXX")
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432 user=postgres

[pgbouncer]
listen_addr =
listen_port = 6432
unix_socket_dir = $dir
auth_type = any
pool_mode = transaction
max_client_conn = 4000
default_pool_size = 10
max_db_connections = 10
server_lifetime = 300
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
# PgBouncer will not run as root: it drops to the postgres user, who must own its directory.
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  chmod 755 "$dir"
  pgbouncer -d -u postgres "$dir/pgbouncer.ini"
else
  pgbouncer -d "$dir/pgbouncer.ini"
fi
for _ in $(seq 1 50); do [ -S "$dir/.s.PGSQL.6432" ] && break; sleep 0.1; done
[ -S "$dir/.s.PGSQL.6432" ] || { cat "$dir/pgbouncer.log"; exit 1; }
echo "$dir"
