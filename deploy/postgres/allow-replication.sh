#!/usr/bin/env bash
# Run once by the postgres image at the primary's first start: the replica may stream from it,
# with the same password as the service (scram-sha-256).
set -euo pipefail
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
