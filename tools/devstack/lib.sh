# Shared helpers for the devstack scripts; sourced, never run.
# shellcheck shell=bash disable=SC2034 # the settings below are used by the scripts that source this file

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEVSTACK_DIR="$ROOT/.devstack"
DEVSTACK_BIN="$DEVSTACK_DIR/bin"
RUN_DIR="$DEVSTACK_DIR/run"
LOG_DIR="$DEVSTACK_DIR/logs"
STATE_DIR="$DEVSTACK_DIR/state"
TLS_DIR="$DEVSTACK_DIR/tls"
NGINX_DIR="$DEVSTACK_DIR/nginx"
VALUES_FILE="$ROOT/charts/bizassist/values.yaml"

HTTPS_PORT=8443
HTTP_PORT=8080
PG_HOST=127.0.0.1
PG_PORT=5432
DB_NAME=bizassist
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
# Services start in this order: identity first, since the others fetch its JWKS.
SERVICE_ORDER=(identity leads assistant analytics integrations)

export PATH="/usr/local/go/bin:$PATH"

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
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

# Pid files hold "pid starttime" so that a recycled pid is never mistaken for ours.
proc_start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  # shellcheck disable=SC2086
  set -- $stat
  # A zombie has exited; its parent may never reap it.
  [ "$1" != Z ] || return 1
  echo "${20}"
}

write_pidfile() {
  local start
  start=$(proc_start_time "$2") || start=0
  echo "$2 $start" >"$1"
}

# pidfile_alive FILE prints the pid and succeeds when the process recorded in FILE still runs.
pidfile_alive() {
  local pid start now
  [ -f "$1" ] || return 1
  read -r pid start <"$1" || return 1
  now=$(proc_start_time "$pid") || return 1
  [ "$now" = "$start" ] || return 1
  echo "$pid"
}

# stop_pidfile FILE NAME sends SIGTERM to the process group, waits, then SIGKILL; removes FILE.
stop_pidfile() {
  local file=$1 name=$2 pid i
  if pid=$(pidfile_alive "$file"); then
    note "stopping $name (pid $pid)"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
      pidfile_alive "$file" >/dev/null || break
      sleep 0.25
    done
    if pidfile_alive "$file" >/dev/null; then
      note "$name did not stop after SIGTERM; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$file"
}

# read_kv FILE prints the KEY=value lines of FILE: comments and blank lines dropped, one pair of
# surrounding quotes removed from the value.
read_kv() {
  local line key value
  [ -f "$1" ] || return 0
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    case "$line" in '' | '#'*) continue ;; esac
    key=${line%%=*}
    value=${line#*=}
    [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ && "$line" == *=* ]] || die "$1: not a KEY=value line: $line"
    if [[ "$value" =~ ^\'(.*)\'$ || "$value" =~ ^\"(.*)\"$ ]]; then value=${BASH_REMATCH[1]}; fi
    printf '%s=%s\n' "$key" "$value"
  done <"$1"
}

# shell_quote VALUE prints VALUE single-quoted for sh.
shell_quote() {
  local q="'\\''"
  printf "'%s'" "${1//\'/$q}"
}

# psql_admin runs psql as the PostgreSQL superuser: over TCP when trust allows it, otherwise
# through the postgres OS user's peer authentication.
psql_admin() {
  export PGOPTIONS="-c client_min_messages=warning"
  if psql -X -w -q -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -c 'SELECT 1' >/dev/null 2>&1; then
    psql -X -w -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U postgres "$@"
  else
    as_root runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" "$@"
  fi
}

redis_ready() {
  [ "$(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

# nginx_pid prints the pid of this stack's nginx master and succeeds when it runs.
nginx_pid() {
  local pid
  [ -f "$NGINX_DIR/run/nginx.pid" ] || return 1
  read -r pid <"$NGINX_DIR/run/nginx.pid" || return 1
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$NGINX_DIR/nginx.conf" || return 1
  echo "$pid"
}

# stack_pids DIR [nginx] prints the pids of processes run from DIR/.devstack: its binaries, their
# dev-procs helpers (which run $DEVSTACK_BIN/... too) and, with "nginx", its nginx master.
stack_pids() {
  local dir=$1 with_nginx=${2:-} f pid args parts
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}
    pid=${pid%/cmdline}
    mapfile -d '' -t parts 2>/dev/null <"$f" || continue
    args="${parts[*]}"
    if [[ "$args" == *"$dir/.devstack/bin/"* ]] ||
      { [ -n "$with_nginx" ] && [[ "$args" == *"$dir/.devstack/nginx/nginx.conf"* ]]; }; then
      proc_start_time "$pid" >/dev/null && echo "$pid"
    fi
  done
}

# kill_pids NAME PID... sends SIGTERM, waits up to 10 s, then SIGKILL.
kill_pids() {
  local name=$1 pid i alive
  shift
  [ $# -gt 0 ] || return 0
  note "stopping $name (pid $*)"
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    alive=()
    for pid in "$@"; do proc_start_time "$pid" >/dev/null && alive+=("$pid"); done
    [ ${#alive[@]} -gt 0 ] || return 0
    sleep 0.25
  done
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

# free_port PORT WHAT makes sure nothing listens on PORT. A bizassist stack of another checkout
# (only one can run per machine) is stopped with its own down.sh; anything else is an error.
free_port() {
  local port=$1 what=$2 pid args dir=""
  port_open 127.0.0.1 "$port" || return 0
  for pid in $(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    if [[ "$args" =~ (/[^ ]*)/\.devstack/(bin/|nginx/nginx\.conf) ]]; then dir=${BASH_REMATCH[1]}; fi
  done
  if [ -n "$dir" ] && [ "$dir" != "$ROOT" ] && [ -x "$dir/tools/devstack/down.sh" ]; then
    say "port $port is held by the bizassist stack in $dir; stopping it"
    "$dir/tools/devstack/down.sh" 9>&- | sed 's/^/    /'
  fi
  if [ -n "$dir" ] && port_open 127.0.0.1 "$port"; then
    # shellcheck disable=SC2046
    kill_pids "the stack of $dir" $(stack_pids "$dir" nginx)
  fi
  port_open 127.0.0.1 "$port" || return 0
  ss -Hltnp "sport = :$port" 2>/dev/null | sed 's/^/    /' >&2 || true
  die "port $port for $what is taken by a process that is not part of a bizassist stack"
}
