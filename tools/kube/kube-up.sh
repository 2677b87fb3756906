#!/usr/bin/env bash
# make kube-up / make kube-down: the single-node cluster (tools/kube/node.sh) with the umbrella chart
# installed the way a platform team with managed databases installs it: external PostgreSQL and
# Redis (this machine's, reached from the pods through relays on the bridge address), Secrets made
# beside the chart, migrations by the chart's hook Job, TLS at the edge.
# The edge is nginx on this host (docs/decisions.md, "Kubernetes node"): its config is rendered
# by tools/kube/nodecheck from the installed Ingress objects, in front of NodePort twins of the
# chart's Services on the bridge address; HTTPS on 127.0.0.1:$KUBE_NODE_HTTPS_PORT (9443), plain
# HTTP (redirected) on $KUBE_NODE_HTTP_PORT (9080), clear of the local stack's 8443 and 8080.
# KUBE_UP_VALUES names more values files (space-separated) layered on values-node.yaml.
#   tools/kube/kube-up.sh up STATE BIN IMAGES_DIR TAG [EXTRA_IMAGE_TAR...]
#   tools/kube/kube-up.sh down STATE BIN
set -euo pipefail
cmd=$1 state=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gw=10.244.0.1
# The install's own database (never the local stack's) and Redis database number; both cleaned by down.
db=${KUBE_NODE_DB:-bizassist_k8s} redis_db=${KUBE_NODE_REDIS_DB:-11}
pg_relay=25432 redis_relay=26379 dns_port=5354
https_port=${KUBE_NODE_HTTPS_PORT:-9443} http_port=${KUBE_NODE_HTTP_PORT:-9080}
ns=bizassist
services=(identity leads assistant analytics integrations console)
K=("$bin/kubectl" --kubeconfig "$state/node/kubeconfig")

# relay NAME PORT TARGET: a listener on the bridge address that forwards to the host's loopback.
relay() {
  socat "TCP-LISTEN:$2,bind=$gw,fork,reuseaddr" "TCP:$3" >"$state/$1.log" 2>&1 &
  echo $! >"$state/$1.pid"
}

# dns: the public DNS that lead-qualify asks for MX records, stood in for as on the local stack
# (services/leads/dev.env): leads' own dns-serve on the bridge address, answering from the
# install's catalog. The pods' resolver forwards nothing out of the cluster.
dns() {
  env -i DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable" DATABASE_SCHEMA=leads \
    LEADS_DNS_SERVE_ADDR="$gw:$dns_port" "$1/bin/leads" dns-serve >"$state/dns.log" 2>&1 &
  echo $! >"$state/dns.pid"
}

# node_images: the pause and CoreDNS images, packed from binaries like the services' (tools/images).
node_images() {
  local out=$state/node-images
  mkdir -p "$out/bin"
  (cd "$here/node" && GOWORK=off CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out/bin/pause" ./pause)
  cp "$bin/coredns" "$out/bin/coredns"
  (cd "$root/tools/images" && GOWORK=off go run . -bin "$out/bin" -out "$out/pause" -repo localhost -tag 3.10 pause)
  (cd "$root/tools/images" && GOWORK=off go run . -bin "$out/bin" -out "$out/coredns" -repo localhost -tag v1.11.3 coredns)
}

# diagnose: what a failed install leaves to read (a hung helm --wait says nothing by itself).
diagnose() {
  echo "kube-up: the install did not become Ready; the cluster's state:" >&2
  "${K[@]}" get pods -A -o wide >&2 || true
  "${K[@]}" get events -A --sort-by=.lastTimestamp 2>/dev/null | tail -30 >&2 || true
  local p
  for p in $("${K[@]}" -n "$ns" get pods -o name 2>/dev/null); do
    echo "--- $p" >&2
    "${K[@]}" -n "$ns" logs "$p" --all-containers --tail 15 >&2 2>&1 || true
  done
}

# edge: NodePort twins of the chart's Services on the bridge address, and the host nginx in
# front of them with a config rendered from the installed Ingress objects.
edge() {
  local s d=$state/edge
  mkdir -p "$d/tmp"
  for s in "${services[@]}"; do
    cat <<EOF
apiVersion: v1
kind: Service
metadata: {name: bizassist-$s-edge, labels: {app.kubernetes.io/part-of: bizassist-node-edge}}
spec:
  type: NodePort
  selector: {app.kubernetes.io/name: $s, app.kubernetes.io/instance: bizassist, app.kubernetes.io/component: server}
  ports: [{name: http, port: 80, targetPort: http, protocol: TCP}]
---
EOF
  done | "${K[@]}" -n "$ns" apply -f - >/dev/null
  "${K[@]}" -n "$ns" get ingress -o json >"$d/ingresses.json"
  "${K[@]}" -n "$ns" get services -o json >"$d/services.json"
  "$state/nodecheck" edge -ingresses "$d/ingresses.json" -services "$d/services.json" -dir "$d" \
    -https "127.0.0.1:$https_port" -http "127.0.0.1:$http_port" -cert "$state/tls.crt" -key "$state/tls.key" -bridge "$gw" >"$d/nginx.conf"
  nginx -q -t -p "$d/" -e "$d/error.log" -c "$d/nginx.conf"
  nginx -p "$d/" -e "$d/error.log" -c "$d/nginx.conf"
  # kube-proxy programs the NodePorts a moment after the Services exist: poll, never sleep.
  local n=240
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$state/tls.crt" "https://127.0.0.1:$https_port/api/auth/jwks.json")" = 200 ]; do
    n=$((n - 1)); [ $n -gt 0 ] || { echo "kube-up: the edge does not reach identity" >&2; return 1; }
    sleep 0.25
  done
}

up() {
  local images=$1 tag=$2 s
  shift 2
  mkdir -p "$state"
  (cd "$here" && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$state/nodecheck" ./nodecheck)
  node_images
  local tars=("$state/node-images/pause/pause.tar" "$state/node-images/coredns/coredns.tar" "$@")
  for s in "${services[@]}"; do tars+=("$images/$s.tar"); done
  "$here/node.sh" up "$state/node" "$bin" "${tars[@]}"
  relay pg-relay "$pg_relay" 127.0.0.1:5432
  relay redis-relay "$redis_relay" 127.0.0.1:6379
  psql -X -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  "${K[@]}" create namespace "$ns" >/dev/null
  sed -e "s|@GW@|$gw|g" -e "s|@PG@|$pg_relay|g" -e "s|@REDIS@|$redis_relay|g" "$root/k8s/node/external-databases.yaml" |
    "${K[@]}" -n "$ns" apply -f - >/dev/null
  local key admin stripe
  admin=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n') stripe=whsec_$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
  printf 'ADMIN_SECRET=%s\nSTRIPE_WEBHOOK_SECRET=%s\nDEMO_PASSWORD=demo-%s\n' "$admin" "$stripe" \
    "$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$state/secrets.env"
  for s in "${services[@]}"; do
    local extra=()
    if [ "$s" = identity ] || [ "$s" = integrations ]; then
      key=$(head -c 32 /dev/urandom | base64)
      extra=(--from-literal "ENCRYPTION_KEYS=node1:$key" --from-literal ENCRYPTION_KEY_ID=node1)
    fi
    [ "$s" = assistant ] && extra+=(--from-literal "AGENT_ADMIN_SECRET=$admin")
    [ "$s" = integrations ] && extra+=(--from-literal "STRIPE_WEBHOOK_SECRET=$stripe")
    "${K[@]}" -n "$ns" create secret generic "bizassist-$s-secrets" \
      --from-literal "DATABASE_URL=postgres://postgres@bizassist-postgresql:5432/$db?sslmode=disable" \
      --from-literal "REDIS_URL=redis://bizassist-redis:6379/$redis_db" "${extra[@]}" >/dev/null
  done
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$state/tls.key" -out "$state/tls.crt" -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
  "${K[@]}" -n "$ns" create secret tls bizassist-tls --cert "$state/tls.crt" --key "$state/tls.key" >/dev/null
  for c in "${services[@]}" bizassist; do
    "$bin/helm" dependency build --skip-refresh "$root/charts/$c" >/dev/null
  done
  # The chart refuses pools the server cannot hold (charts/README.md, "Connection budget"): declare
  # what it has free now (this query's own connection is about to close).
  local free
  free=$(psql -X -At -h 127.0.0.1 -U postgres -d postgres -c "SELECT current_setting('max_connections')::int
    - current_setting('superuser_reserved_connections')::int
    - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int + 1")
  echo "kube-up: PostgreSQL has $free connections free for the pods' pools"
  local values=(--values "$root/charts/bizassist/values-node.yaml") f
  for f in ${KUBE_UP_VALUES:-}; do values+=(--values "$f"); done
  "$bin/helm" upgrade --install bizassist "$root/charts/bizassist" --kubeconfig "$state/node/kubeconfig" \
    --namespace "$ns" "${values[@]}" --set "global.image.tag=$tag" \
    --set "postgresql.maxConnections=$free" --wait --timeout 5m || { diagnose; return 1; }
  dns "$images"
  edge
  seed
}

# seed: the demo accounts, as an operator makes accounts in an install (the service's own
# commands, run in its pod), and the settings file the e2e suite reads (BIZASSIST_E2E_ENV): the
# same keys as make up's .devstack/env.
seed() {
  local pass email plan business ext
  pass=$(sed -n 's/^DEMO_PASSWORD=//p' "$state/secrets.env")
  while read -r email plan business; do
    printf '%s\n' "$pass" | "${K[@]}" -n "$ns" exec -i deploy/bizassist-identity -- identity accounts create \
      --email "$email" --plan "$plan" --business "$business" --if-missing >/dev/null
  done <<'ACCOUNTS'
demo-free@bizassist.local free Demo Free Bakery
demo-growth@bizassist.local growth Demo Growth Plumbing
demo-fullstack@bizassist.local full_stack Demo Full Stack Dental
ACCOUNTS
  "${K[@]}" -n "$ns" exec deploy/bizassist-analytics -- analytics demo seed >/dev/null
  # The demo catalog of make up (services/leads/dev-seed.sh), streamed to the import in the pod.
  (cd "$root" && go run ./tools/catalog-gen -n 20000 -seed 42 -o "$state/demo-catalog.ndjson")
  "${K[@]}" -n "$ns" exec -i deploy/bizassist-leads -- leads catalog import -format ndjson /dev/stdin \
    <"$state/demo-catalog.ndjson" >/dev/null
  ext=$("${K[@]}" -n "$ns" exec deploy/bizassist-integrations -- integrations secrets rotate \
    --email demo-growth@bizassist.local --wait 60s)
  {
    echo "# Written by make kube-up: the single-node install, for people and BIZASSIST_E2E_ENV."
    echo "BASE_URL=https://127.0.0.1:$https_port"
    echo "HTTP_URL=http://127.0.0.1:$http_port"
    echo "CONSOLE_URL=https://127.0.0.1:$https_port/"
    echo "CA_CERT=$state/tls.crt"
    echo "ACCESS_LOG=$state/edge/access.log"
    echo "REDIS_URL=redis://127.0.0.1:6379/$redis_db"
    cat "$state/secrets.env"
    echo "DEMO_FREE_EMAIL=demo-free@bizassist.local"
    echo "DEMO_GROWTH_EMAIL=demo-growth@bizassist.local"
    echo "DEMO_FULL_STACK_EMAIL=demo-fullstack@bizassist.local"
    echo "BENCH_SOURCE_IP=127.0.0.9"
    echo "EXT_SECRET=$ext"
    echo "KUBECONFIG=$state/node/kubeconfig"
    echo "KUBECTL=$bin/kubectl"
    echo "KUBE_NAMESPACE=$ns"
  } >"$state/env"
}

down() {
  local p
  if [ -f "$state/edge/nginx.pid" ]; then
    p=$(cat "$state/edge/nginx.pid")
    kill -QUIT "$p" 2>/dev/null
    for _ in $(seq 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -TERM "$p" 2>/dev/null
  fi
  for p in pg-relay redis-relay dns; do
    [ -f "$state/$p.pid" ] && { kill "$(cat "$state/$p.pid")" 2>/dev/null; rm -f "$state/$p.pid"; }
  done
  "$here/node.sh" down "$state/node" "$bin"
  psql -X -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null
  redis-cli -h 127.0.0.1 -n "$redis_db" FLUSHDB >/dev/null 2>&1
  rm -rf "$state"
  return 0
}

case $cmd in
up) shift 3; up "$@" ;;
down) set +e; down ;;
*) echo "usage: $0 up STATE BIN IMAGES_DIR TAG [EXTRA_IMAGE_TAR...] | down STATE BIN" >&2; exit 2 ;;
esac
