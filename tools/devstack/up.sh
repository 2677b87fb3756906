#!/usr/bin/env bash
# make up: builds every service, prepares PostgreSQL, Redis, TLS and the nginx ingress, migrates,
# (re)starts the services, seeds demo data and writes .devstack/env. Safe to run again at any
# time: a second run rebuilds and restarts the services on the new binaries.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
started_at=$SECONDS

mkdir -p "$DEVSTACK_DIR" "$RUN_DIR" "$LOG_DIR" "$STATE_DIR"
exec 9>"$DEVSTACK_DIR/lock"
flock -n 9 || die "another make up or make down is running on $DEVSTACK_DIR"

# Daemons started from here must not inherit the lock (fd 9), or they would hold it forever.
"$ROOT/tools/devstack/deps.sh" 9>&-
"$ROOT/tools/devstack/tls.sh" 9>&-

# --- generated secrets, made once -------------------------------------------------------------
# The database may outlive .devstack (another clone, rm -rf .devstack): the seeds converge on
# these values, so new secrets and old data agree after the run.
if [ ! -s "$STATE_DIR/secrets.env" ]; then
  say "generating local secrets in $STATE_DIR"
  (
    umask 077
    {
      echo "DEMO_PASSWORD=demo-$(openssl rand -hex 8)"
      echo "ADMIN_SECRET=$(openssl rand -hex 24)"
      echo "STRIPE_WEBHOOK_SECRET=whsec_$(openssl rand -hex 24)"
    } >"$STATE_DIR/secrets.env.tmp"
    mv "$STATE_DIR/secrets.env.tmp" "$STATE_DIR/secrets.env"
  )
  rm -f "$STATE_DIR/seed.env"
fi
# The key that seals secrets at rest (libs/sealbox); added on its own so older state keeps the rest.
if ! grep -q '^ENCRYPTION_KEYS=' "$STATE_DIR/secrets.env"; then
  (umask 077; echo "ENCRYPTION_KEYS=local1:$(openssl rand -base64 32)" >>"$STATE_DIR/secrets.env")
fi
# Split at the first '=' only: base64 values end in '=', which read with IFS='=' would drop.
while IFS= read -r line; do printf -v "${line%%=*}" '%s' "${line#*=}"; done < <(read_kv "$STATE_DIR/secrets.env")

# --- build ----------------------------------------------------------------------------------------
# A service exists once services/<svc>/cmd/<svc> has Go files; DEVSTACK_SKIP="leads ..." leaves
# services out on purpose (while one does not build, say).
present=()
for dir in services/*/cmd/*/; do
  svc=$(basename "$dir")
  [ "$dir" = "services/$svc/cmd/$svc/" ] || continue
  compgen -G "$dir*.go" >/dev/null || continue
  [[ " ${DEVSTACK_SKIP:-} " == *" $svc "* ]] && { note "skipping $svc (DEVSTACK_SKIP)"; continue; }
  present+=("$svc")
done
say "building routegen ${present[*]}"
rm -rf "$DEVSTACK_DIR/bin.new" && mkdir -p "$DEVSTACK_DIR/bin.new"
pkgs=(./tools/routegen)
for svc in "${present[@]}"; do pkgs+=("./services/$svc/cmd/$svc"); done
go build -o "$DEVSTACK_DIR/bin.new/" "${pkgs[@]}"

# Services and ports come from the route table, so nginx and the stack cannot disagree.
declare -A port_of=()
while read -r svc port; do port_of[$svc]=$port; done \
  < <("$DEVSTACK_DIR/bin.new/routegen" -values "$VALUES_FILE" -template tools/devstack/services.tmpl)
services=()
for svc in "${SERVICE_ORDER[@]}"; do [ -n "${port_of[$svc]:-}" ] && services+=("$svc"); done
for svc in "${!port_of[@]}"; do [[ " ${SERVICE_ORDER[*]} " == *" $svc "* ]] || services+=("$svc"); done
running=() absent=()
for svc in "${services[@]}"; do
  if [ -x "$DEVSTACK_DIR/bin.new/$svc" ]; then running+=("$svc"); else absent+=("$svc"); fi
done
for svc in "${present[@]}"; do
  [ -n "${port_of[$svc]:-}" ] || die "services/$svc has a cmd but no port in $VALUES_FILE (ingress.localPorts)"
done

# --- stop what runs, swap in the new binaries -----------------------------------------------------
"$ROOT/tools/devstack/stop.sh" services
rm -rf "$DEVSTACK_BIN.old"
[ -d "$DEVSTACK_BIN" ] && mv "$DEVSTACK_BIN" "$DEVSTACK_BIN.old"
mv "$DEVSTACK_DIR/bin.new" "$DEVSTACK_BIN"
rm -rf "$DEVSTACK_BIN.old"

# --- database and redis ---------------------------------------------------------------------------
# Each role owns its schema and has no grant on the others'. CREATE on the database is there
# because migrations run CREATE SCHEMA IF NOT EXISTS and CREATE EXTENSION (trusted ones, such as
# pg_trgm), which PostgreSQL checks against it even when the object exists; TEMPORARY for the
# staging tables of bulk imports.
say "preparing database $DB_NAME: one role and one schema per service"
if [ -z "$(psql_admin -d postgres -At -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" ]; then
  psql_admin -d postgres -c "CREATE DATABASE $DB_NAME"
fi
{
  echo "REVOKE ALL ON DATABASE $DB_NAME FROM PUBLIC;"
  echo "REVOKE CREATE ON SCHEMA public FROM PUBLIC;"
  for svc in "${services[@]}"; do
    cat <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$svc') THEN CREATE ROLE "$svc" LOGIN; END IF;
END \$\$;
GRANT CONNECT, CREATE, TEMPORARY ON DATABASE $DB_NAME TO "$svc";
CREATE SCHEMA IF NOT EXISTS "$svc" AUTHORIZATION "$svc";
SQL
  done
} | psql_admin -d "$DB_NAME" -f - >/dev/null

# --- ingress --------------------------------------------------------------------------------------
"$ROOT/tools/devstack/ingress.sh" 9>&-

# --- services -------------------------------------------------------------------------------------
# service_env SVC writes the service's environment to run/SVC.env: common settings, then its
# dev.env (which may override them), then the stack-wide settings and generated secrets.
service_env() {
  local svc=$1 port=${port_of[$1]}
  {
    cat <<ENV
PATH=$PATH
HOME=$HOME
TZ=UTC
HTTP_ADDR=127.0.0.1:$port
DATABASE_URL=postgres://$svc@$PG_HOST:$PG_PORT/$DB_NAME?sslmode=disable
DATABASE_SCHEMA=$svc
DATABASE_MAX_CONNS=5
REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT/0
JWT_JWKS_URL=http://127.0.0.1:${port_of[identity]:-8081}/api/auth/jwks.json
TRUSTED_PROXIES=127.0.0.1/32,::1/128
UPGRADE_URL=https://bizassist.local/pricing
LOG_LEVEL=info
HTTP_DRAIN_DELAY=0s
ENV
    read_kv "services/$svc/dev.env"
    # 127.0.0.9 is make bench's source address; e2e clients use other 127.x addresses.
    echo "RATELIMIT_EXEMPT_CIDRS=127.0.0.9/32"
    case $svc in
      assistant) echo "AGENT_ADMIN_SECRET=$ADMIN_SECRET" ;;
      integrations) echo "STRIPE_WEBHOOK_SECRET=$STRIPE_WEBHOOK_SECRET" ;;
    esac
    case $svc in
      identity | integrations) printf 'ENCRYPTION_KEYS=%s\nENCRYPTION_KEY_ID=local1\n' "$ENCRYPTION_KEYS" ;;
    esac
  } >"$RUN_DIR/$svc.env"
}

# start_bg PIDFILE LOG ENVFILE COMMAND... starts COMMAND in its own session with exactly the
# environment in ENVFILE (plus DEVSTACK_*), logging to LOG.
start_bg() {
  local pidfile=$1 log=$2 envfile=$3 envs
  shift 3
  mapfile -t envs <"$envfile"
  [ -f "$log" ] && mv -f "$log" "$log.1"
  (exec env -i "${envs[@]}" DEVSTACK_DIR="$DEVSTACK_DIR" DEVSTACK_BIN="$DEVSTACK_BIN" setsid "$@") \
    >"$log" 2>&1 </dev/null 9>&- &
  write_pidfile "$pidfile" $!
}

start_service() {
  local svc=$1 port=${port_of[$1]} line name cmd
  free_port "$port" "$svc"
  if [ -f "services/$svc/dev-procs" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in '' | '#'*) continue ;; esac
      name=${line%%:*}
      cmd=${line#*:}
      [[ "$name" =~ ^[A-Za-z0-9_-]+$ && "$line" == *:* ]] || die "services/$svc/dev-procs: want 'name: command', got: $line"
      say "starting $svc helper $name"
      start_bg "$RUN_DIR/$svc.proc.$name.pid" "$LOG_DIR/$svc-$name.log" "$RUN_DIR/$svc.env" bash -c "exec $cmd"
    done <"services/$svc/dev-procs"
  fi
  say "starting $svc on 127.0.0.1:$port"
  start_bg "$RUN_DIR/$svc.pid" "$LOG_DIR/$svc.log" "$RUN_DIR/$svc.env" "$DEVSTACK_BIN/$svc" serve
}

service_ready() {
  local svc=$1 f
  for f in "$RUN_DIR/$svc".pid "$RUN_DIR/$svc".proc.*.pid; do
    [ -f "$f" ] || continue
    pidfile_alive "$f" >/dev/null || return 2
  done
  curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${port_of[$svc]}/readyz" 2>/dev/null
}

wait_ready() {
  local svc=$1 i rc=0 timeout=${DEVSTACK_READY_TIMEOUT:-60}
  for ((i = 0; i < timeout * 4; i++)); do
    rc=0
    service_ready "$svc" || rc=$?
    [ $rc -eq 0 ] && { note "$svc is ready"; return 0; }
    [ $rc -eq 2 ] && break
    sleep 0.25
  done
  tail -n 20 "$LOG_DIR/$svc.log" 2>/dev/null | sed 's/^/    | /' >&2 || true
  if [ $rc -eq 2 ]; then
    die "$svc (or one of its dev-procs helpers) exited; see $LOG_DIR/$svc*.log"
  fi
  die "$svc did not report ready on http://127.0.0.1:${port_of[$svc]}/readyz within ${timeout}s; see $LOG_DIR/$svc.log"
}

for svc in "${running[@]}"; do
  service_env "$svc"
  say "migrating $svc"
  mapfile -t envs <"$RUN_DIR/$svc.env"
  if ! env -i "${envs[@]}" "$DEVSTACK_BIN/$svc" migrate >"$LOG_DIR/$svc-migrate.log" 2>&1; then
    tail -n 20 "$LOG_DIR/$svc-migrate.log" | sed 's/^/    | /' >&2
    die "migrating $svc failed; see $LOG_DIR/$svc-migrate.log"
  fi
done

# identity first and alone: the others fetch its JWKS. Then the rest together.
for svc in "${running[@]}"; do
  [ "$svc" = identity ] || continue
  start_service identity
  wait_ready identity
done
for svc in "${running[@]}"; do [ "$svc" = identity ] || start_service "$svc"; done
for svc in "${running[@]}"; do [ "$svc" = identity ] || wait_ready "$svc"; done

# --- .devstack/env and seeds ----------------------------------------------------------------------
# write_env writes the stack's settings twice: run/stack.env literally (for the seeds' env) and
# .devstack/env shell-quoted (for people and tests).
write_env() {
  local tmp="$DEVSTACK_DIR/env.tmp" key value
  {
    cat <<ENV
BASE_URL=https://127.0.0.1:$HTTPS_PORT
HTTP_URL=http://127.0.0.1:$HTTP_PORT
CA_CERT=$TLS_DIR/ca.crt
REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT/0
DEMO_PASSWORD=$DEMO_PASSWORD
DEMO_FREE_EMAIL=demo-free@bizassist.local
DEMO_GROWTH_EMAIL=demo-growth@bizassist.local
DEMO_FULL_STACK_EMAIL=demo-fullstack@bizassist.local
ADMIN_SECRET=$ADMIN_SECRET
STRIPE_WEBHOOK_SECRET=$STRIPE_WEBHOOK_SECRET
BENCH_SOURCE_IP=127.0.0.9
SERVICES_RUNNING=${running[*]}
SERVICES_ABSENT=${absent[*]}
ENV
    read_kv "$STATE_DIR/seed.env"
  } >"$RUN_DIR/stack.env"
  {
    echo "# Written by make up; source it: set -a; . .devstack/env; set +a"
    while IFS='=' read -r key value; do
      printf '%s=%s\n' "$key" "$(shell_quote "$value")"
    done <"$RUN_DIR/stack.env"
  } >"$tmp"
  mv "$tmp" "$DEVSTACK_DIR/env"
}

# merge_seed_output FILE folds KEY=value lines into state/seed.env, newer values winning, so a
# value a seed prints only once (a webhook secret) survives later runs.
merge_seed_output() {
  local merged key value
  declare -A kv=()
  local -a order=()
  while IFS='=' read -r key value; do
    [ -n "${kv[$key]+x}" ] || order+=("$key")
    kv[$key]=$value
  done < <(read_kv "$STATE_DIR/seed.env"; read_kv "$1")
  merged="$STATE_DIR/seed.env.tmp"
  : >"$merged"
  for key in "${order[@]}"; do printf '%s=%s\n' "$key" "${kv[$key]}" >>"$merged"; done
  mv "$merged" "$STATE_DIR/seed.env"
}

write_env
for svc in "${running[@]}"; do
  seed="services/$svc/dev-seed.sh"
  [ -f "$seed" ] || continue
  say "seeding $svc"
  out="$RUN_DIR/$svc.seed.out"
  : >"$out"
  mapfile -t envs < <(cat "$RUN_DIR/stack.env" "$RUN_DIR/$svc.env")
  if ! env -i "${envs[@]}" DEVSTACK_DIR="$DEVSTACK_DIR" DEVSTACK_BIN="$DEVSTACK_BIN" DEVSTACK_ENV_OUT="$out" \
    bash "$seed" >"$LOG_DIR/$svc-seed.log" 2>&1 </dev/null; then
    tail -n 20 "$LOG_DIR/$svc-seed.log" | sed 's/^/    | /' >&2
    die "$seed failed; see $LOG_DIR/$svc-seed.log"
  fi
  merge_seed_output "$out"
  write_env
done

echo
if [ ${#absent[@]} -gt 0 ]; then
  say "not running (no services/<svc>/cmd yet, or DEVSTACK_SKIP), their routes answer 502: ${absent[*]}"
fi
say "bizassist is up at https://127.0.0.1:$HTTPS_PORT ($((SECONDS - started_at))s; services: ${running[*]:-none})"
note "settings: $DEVSTACK_DIR/env    logs: $LOG_DIR    stop: make down"
note "try: curl --cacert $TLS_DIR/ca.crt https://127.0.0.1:$HTTPS_PORT/api/auth \\"
note "       -H 'Content-Type: application/json' \\"
note "       -d '{\"email\":\"demo-growth@bizassist.local\",\"password\":\"$DEMO_PASSWORD\"}'"
