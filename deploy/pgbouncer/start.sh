#!/usr/bin/env bash
# Writes PgBouncer's settings from the environment, then runs it in the foreground as postgres.
# Clients authenticate with the database's own password (scram-sha-256), which PgBouncer also
# uses towards the server.
set -euo pipefail
dir=/etc/pgbouncer
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
INI
printf '"%s" "%s"\n' "$DATABASE_USER" "$DATABASE_PASSWORD" > "$dir/userlist.txt"
chown -R postgres "$dir"
chmod 600 "$dir/userlist.txt"
exec su postgres -s /bin/bash -c "pgbouncer $dir/pgbouncer.ini"
