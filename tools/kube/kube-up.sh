#!/usr/bin/env bash
# make kube-up / make kube-down: the single-node cluster (tools/kube/node.sh) with the umbrella chart
# installed the way a platform team with managed databases installs it: external PostgreSQL and
# Redis (this machine's, reached from the pods through relays on the bridge address), Secrets made
# beside the chart, migrations by the chart's hook Job, TLS at the edge.
#   tools/kube/kube-up.sh up STATE BIN IMAGES_DIR TAG
#   tools/kube/kube-up.sh down STATE BIN
set -euo pipefail
cmd=$1 state=$2 bin=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gw=10.244.0.1
# The install's own database (never the local stack's) and Redis database number; both cleaned by down.
db=${KUBE_NODE_DB:-bizassist_k8s} redis_db=${KUBE_NODE_REDIS_DB:-11}
pg_relay=25432 redis_relay=26379
ns=bizassist
K=("$bin/kubectl" --kubeconfig "$state/node/kubeconfig")

# relay NAME PORT TARGET: a listener on the bridge address that forwards to the host's loopback.
relay() {
  socat "TCP-LISTEN:$2,bind=$gw,fork,reuseaddr" "TCP:$3" >"$state/$1.log" 2>&1 &
  echo $! >"$state/$1.pid"
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

up() {
  local images=$1 tag=$2 s
  mkdir -p "$state"
  node_images
  local tars=("$state/node-images/pause/pause.tar" "$state/node-images/coredns/coredns.tar")
  for s in identity leads assistant analytics integrations console; do tars+=("$images/$s.tar"); done
  "$here/node.sh" up "$state/node" "$bin" "${tars[@]}"
  relay pg-relay "$pg_relay" 127.0.0.1:5432
  relay redis-relay "$redis_relay" 127.0.0.1:6379
  psql -X -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  "${K[@]}" create namespace "$ns" >/dev/null
  sed -e "s|@GW@|$gw|g" -e "s|@PG@|$pg_relay|g" -e "s|@REDIS@|$redis_relay|g" "$root/k8s/node/external-databases.yaml" |
    "${K[@]}" -n "$ns" apply -f - >/dev/null
  local key
  for s in identity leads assistant analytics integrations console; do
    local extra=()
    if [ "$s" = identity ] || [ "$s" = integrations ]; then
      key=$(head -c 32 /dev/urandom | base64)
      extra=(--from-literal "ENCRYPTION_KEYS=node1:$key" --from-literal ENCRYPTION_KEY_ID=node1)
    fi
    "${K[@]}" -n "$ns" create secret generic "bizassist-$s-secrets" \
      --from-literal "DATABASE_URL=postgres://postgres@bizassist-postgresql:5432/$db?sslmode=disable" \
      --from-literal "REDIS_URL=redis://bizassist-redis:6379/$redis_db" "${extra[@]}" >/dev/null
  done
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$state/tls.key" -out "$state/tls.crt" -days 2 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
  "${K[@]}" -n "$ns" create secret tls bizassist-tls --cert "$state/tls.crt" --key "$state/tls.key" >/dev/null
  for c in identity leads assistant analytics integrations console bizassist; do
    "$bin/helm" dependency build --skip-refresh "$root/charts/$c" >/dev/null
  done
  "$bin/helm" upgrade --install bizassist "$root/charts/bizassist" --kubeconfig "$state/node/kubeconfig" \
    --namespace "$ns" --values "$root/charts/bizassist/values-node.yaml" --set "global.image.tag=$tag" \
    --wait --timeout 10m
}

down() {
  local p
  for p in pg-relay redis-relay; do
    [ -f "$state/$p.pid" ] && { kill "$(cat "$state/$p.pid")" 2>/dev/null; rm -f "$state/$p.pid"; }
  done
  "$here/node.sh" down "$state/node" "$bin"
  psql -X -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null
  redis-cli -h 127.0.0.1 -n "$redis_db" FLUSHDB >/dev/null 2>&1
  rm -rf "$state"
  return 0
}

case $cmd in
up) up "$4" "$5" ;;
down) set +e; down ;;
*) echo "usage: $0 up STATE BIN IMAGES_DIR TAG | down STATE BIN" >&2; exit 2 ;;
esac
