#!/usr/bin/env bash
# pg-replica.sh up|down: a streaming replica of the local PostgreSQL for the scale-out shape
# (make up PG_REPLICA=1): pg_basebackup -R into .devstack/pg-replica, a hot standby on
# 127.0.0.1:PG_REPLICA_PORT (lib.sh) run by the postgres user. up is idempotent: a streaming
# replica is kept. The primary is never restarted; up needs a replication role and one pg_hba
# line on it, which it adds once (the line is marked; the server reloads its configuration).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIR="$DEVSTACK_DIR/pg-replica"
ROLE=bizassist_replicator
version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1)
BIN=/usr/lib/postgresql/$version/bin
as_pg() { as_root runuser -u postgres -- "$@"; }
psql_primary() { psql -X -w -At -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres "$@"; }
psql_replica() { psql -X -w -At -h 127.0.0.1 -p "$PG_REPLICA_PORT" -U postgres -d postgres "$@"; }

streaming() {
  [ "$(psql_replica -c "SELECT pg_is_in_recovery() AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')" 2>/dev/null)" = t ]
}

# allow_replication: a LOGIN REPLICATION role without a password, allowed from loopback only.
allow_replication() {
  psql_primary -q -c "DO \$\$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$ROLE') THEN CREATE ROLE $ROLE LOGIN REPLICATION; END IF;
  END \$\$"
  local hba
  hba=$(psql_primary -c 'SHOW hba_file')
  if ! as_root grep -q '^# bizassist devstack replica' "$hba"; then
    say "allowing replication connections of role $ROLE from 127.0.0.1 in $hba (configuration reloaded, not restarted)"
    as_root sed -i "1i # bizassist devstack replica\nhost replication $ROLE 127.0.0.1/32 trust" "$hba"
    psql_primary -q -c 'SELECT pg_reload_conf()' >/dev/null
    sleep 0.5
  fi
}

up() {
  [ -x "$BIN/pg_basebackup" ] || die "PostgreSQL $version's server binaries are not in $BIN"
  if streaming; then say "PostgreSQL replica on 127.0.0.1:$PG_REPLICA_PORT is streaming"; return; fi
  down quiet
  port_open 127.0.0.1 "$PG_REPLICA_PORT" && die "port $PG_REPLICA_PORT is taken by another process"
  allow_replication
  say "copying PostgreSQL $PG_HOST:$PG_PORT into $DIR (pg_basebackup)"
  as_root install -d -o postgres -g postgres -m 0700 "$DIR"
  as_pg "$BIN/pg_basebackup" -h "$PG_HOST" -p "$PG_PORT" -U "$ROLE" -D "$DIR" -X stream -R -c fast
  # Debian keeps the configuration in /etc; the standby gets its own, settings the primary's
  # hot-standby checks require copied over (a standby refuses to start with fewer).
  local setting conf=""
  for setting in max_connections max_worker_processes max_wal_senders max_prepared_transactions max_locks_per_transaction; do
    conf+="$setting = $(psql_primary -c "SHOW $setting")"$'\n'
  done
  as_pg tee "$DIR/postgresql.conf" >/dev/null <<CONF
port = $PG_REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
hot_standby = on
hot_standby_feedback = on
max_standby_streaming_delay = 5s
shared_buffers = 64MB
log_min_messages = warning
$conf
CONF
  as_pg tee "$DIR/pg_hba.conf" >/dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
  as_pg touch "$DIR/pg_ident.conf"
  as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/replica.log" -w -t 60 start >/dev/null
  wait_for "the replica streaming from $PG_HOST:$PG_PORT" 30 streaming
  say "PostgreSQL replica is up (DATABASE_REPLICA_URL on 127.0.0.1:$PG_REPLICA_PORT)"
}

down() {
  if [ -f "$DIR/postmaster.pid" ]; then
    as_pg "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null 2>&1 || true
  fi
  as_root rm -rf "$DIR"
  [ "${1:-}" = quiet ] || say "PostgreSQL replica stopped"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) die "usage: $0 up|down" ;;
esac
