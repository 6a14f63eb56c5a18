#!/usr/bin/env bash
# Writes PgBouncer's settings from the environment, then runs it in the foreground: as postgres
# when started as root (compose), as itself otherwise (Kubernetes, with PGBOUNCER_DIR on a
# writable volume). Clients authenticate with the database's own password (scram-sha-256), which
# PgBouncer also uses towards the server.
set -euo pipefail
dir=${PGBOUNCER_DIR:-/etc/pgbouncer}
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=${DATABASE_HOST} port=${DATABASE_PORT:-5432}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = 6432
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = ${MAX_CLIENT_CONN:-1000}
default_pool_size = ${DEFAULT_POOL_SIZE:-20}
server_lifetime = 300
ignore_startup_parameters = extra_float_digits
unix_socket_dir = $dir
INI
printf '"%s" "%s"\n' "$DATABASE_USER" "$DATABASE_PASSWORD" > "$dir/userlist.txt"
chmod 600 "$dir/userlist.txt"
if [ "$(id -u)" != 0 ]; then exec pgbouncer "$dir/pgbouncer.ini"; fi
chown -R postgres "$dir"
exec su postgres -s /bin/bash -c "pgbouncer $dir/pgbouncer.ini"
