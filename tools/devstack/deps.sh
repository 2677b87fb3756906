#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis, nginx, openssl and Chromium are installed and PostgreSQL and Redis accept
# connections: installs what is missing with apt-get, starts what is installed but stopped.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

missing=()
command -v pg_ctlcluster >/dev/null || missing+=(postgresql postgresql-contrib)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v nginx >/dev/null || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl)
command -v curl >/dev/null || missing+=(curl)
# The console's browser tests drive Debian's Chromium headless (make test-e2e).
command -v chromium >/dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # nginx-light (Debian) has all the stack needs; distributions without it ship one nginx.
  if apt-cache show nginx-light >/dev/null 2>&1; then missing=("${missing[@]/#nginx/nginx-light}"); fi
  say "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Instances on other ports (DEVSTACK_PG_PORT, DEVSTACK_REDIS_PORT) are their owner's to start.
if ! port_open "$PG_HOST" "$PG_PORT"; then
  [ "$PG_PORT" = 5432 ] || die "nothing listens on PostgreSQL's port $PG_PORT (DEVSTACK_PG_PORT)"
  version=$(ls /etc/postgresql | sort -V | tail -n1)
  [ -n "$version" ] || die "PostgreSQL is installed but /etc/postgresql has no cluster"
  say "starting PostgreSQL $version"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
fi
wait_for "PostgreSQL on $PG_HOST:$PG_PORT" 60 pg_isready -q -h "$PG_HOST" -p "$PG_PORT"

# A fresh Debian install asks for passwords over TCP; the local stack connects each service as
# its own passwordless role, so trust loopback for the stack's database only.
if ! psql -X -w -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c 'SELECT 1' >/dev/null 2>&1; then
  hba=$(as_root runuser -u postgres -- psql -X -At -c 'SHOW hba_file')
  if ! as_root grep -q '^# bizassist devstack' "$hba"; then
    say "allowing passwordless loopback connections to database $DB_NAME in $hba"
    as_root sed -i "1i # bizassist devstack\nhost $DB_NAME all 127.0.0.1/32 trust\nhost $DB_NAME all ::1/128 trust" "$hba"
    as_root runuser -u postgres -- psql -X -q -c 'SELECT pg_reload_conf()' >/dev/null
  fi
fi

if ! port_open "$REDIS_HOST" "$REDIS_PORT"; then
  [ "$REDIS_PORT" = 6379 ] || die "nothing listens on Redis's port $REDIS_PORT (DEVSTACK_REDIS_PORT)"
  say "starting Redis"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
    --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for "Redis on $REDIS_HOST:$REDIS_PORT" 30 redis_ready

say "PostgreSQL and Redis are up"
