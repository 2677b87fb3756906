# Shared helpers of deps.sh and tls.sh, the two steps of the local stack that stay shell; sourced,
# never run. The addresses are the ones tools/devstack (stack.go) uses: keep them in step; the
# ports follow DEVSTACK_PG_PORT and DEVSTACK_REDIS_PORT like the tool's.
# shellcheck shell=bash disable=SC2034 # the settings below are used by the scripts that source this file

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEVSTACK_DIR="$ROOT/.devstack"
TLS_DIR="$DEVSTACK_DIR/tls"

PG_HOST=127.0.0.1
PG_PORT=${DEVSTACK_PG_PORT:-5432}
DB_NAME=bizassist
REDIS_HOST=127.0.0.1
REDIS_PORT=${DEVSTACK_REDIS_PORT:-6379}

export PATH="/usr/local/go/bin:$PATH"

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# as_root runs a command as root, through sudo when we are not root.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# port_open HOST PORT succeeds when something accepts TCP connections there.
port_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# wait_for DESCRIPTION SECONDS COMMAND... retries COMMAND every half second.
wait_for() {
  local what=$1 secs=$2 i
  shift 2
  for ((i = 0; i < secs * 2; i++)); do
    if "$@"; then return 0; fi
    sleep 0.5
  done
  die "$what did not come up within ${secs}s"
}

redis_ready() {
  [ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

# The scale-out shape (make up REDIS=cluster, PG_REPLICA=1): a local Redis Cluster of three masters
# and three replicas, and a streaming replica of the PostgreSQL above. Keep in step with stack.go.
REDIS_CLUSTER_PORTS=(7101 7102 7103 7104 7105 7106)
PG_REPLICA_PORT=5442
