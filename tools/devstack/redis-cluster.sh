#!/usr/bin/env bash
# redis-cluster.sh up|down|start PORT: a local Redis Cluster for the scale-out shape (make up REDIS=cluster):
# Debian's redis-server on the loopback ports of REDIS_CLUSTER_PORTS (lib.sh), three masters each
# with one replica, data under .devstack/redis-cluster. up is idempotent: a running, healthy
# cluster is kept (its keys too); down stops the nodes and removes their data; start PORT restarts
# one node that died (it rejoins from its nodes.conf, as a replica if it lost its master role).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIR="$DEVSTACK_DIR/redis-cluster"
first=${REDIS_CLUSTER_PORTS[0]}

# cluster_ok: every slot served, three masters, all six nodes connected and none failed.
cluster_ok() {
  local nodes
  redis-cli -p "$first" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  nodes=$(redis-cli -p "$first" cluster nodes 2>/dev/null)
  [ "$(grep -c master <<<"$nodes")" -eq 3 ] && [ "$(grep -v fail <<<"$nodes" | grep -c ' connected')" -eq 6 ]
}

# node_dir PORT: the data directory of the Redis node on PORT (empty when none answers).
node_dir() { { redis-cli -p "$1" config get dir 2>/dev/null || true; } | sed -n 2p; }

# ours: every node runs from this checkout's data directory (another checkout's cluster on the
# same ports is healthy too, but start PORT could not restart its nodes).
ours() {
  local port
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    [ "$(node_dir "$port")" = "$DIR/$port" ] || return 1
  done
}

port_free() { ! port_open 127.0.0.1 "$1"; }

# stop_foreign: shut down the nodes another checkout's redis-cluster.sh left on our ports, as
# make up stops another checkout's stack; anything else on a port is left for up to refuse.
stop_foreign() {
  local port dir
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    dir=$(node_dir "$port")
    if [[ "$dir" == */.devstack/redis-cluster/"$port" && "$dir" != "$DIR/$port" ]]; then
      say "stopping the Redis Cluster node of another checkout on $port ($dir)"
      redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
      wait_for "the node on $port to stop" 10 port_free "$port"
    fi
  done
}

up() {
  command -v redis-server >/dev/null || die "redis-server is not installed (make deps)"
  if cluster_ok && ours; then say "Redis Cluster on 127.0.0.1:${REDIS_CLUSTER_PORTS[*]} is up"; return; fi
  down quiet
  stop_foreign
  say "starting a Redis Cluster (3 masters, 3 replicas) on 127.0.0.1:${REDIS_CLUSTER_PORTS[*]}"
  local port addrs=()
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    port_open 127.0.0.1 "$port" && die "port $port is taken by another process"
    start_node "$port"
    addrs+=("127.0.0.1:$port")
  done
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    wait_for "Redis node on $port" 10 redis-cli -p "$port" ping >/dev/null
  done
  redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 ||
    { cat "$DIR/create.log" >&2; die "redis-cli --cluster create failed"; }
  wait_for "Redis Cluster state ok" 30 cluster_ok
  # Every replica must have synced before the stack counts on WAIT 1.
  wait_for "Redis Cluster replicas in sync" 30 replicas_synced
  say "Redis Cluster is up (REDIS_CLUSTER_ADDRS=$(IFS=,; echo "${addrs[*]}"))"
}

start_node() {
  local port=$1
  mkdir -p "$DIR/$port"
  # appendfsync everysec, as a production cluster would run; the failover tests kill nodes.
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --dir "$DIR/$port" \
    --pidfile "$DIR/$port/redis.pid" --logfile "$DIR/$port/redis.log" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --appendonly yes --appendfsync everysec --save ""
}

replicas_synced() {
  local port
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    if redis-cli -p "$port" info replication | grep -q '^role:master'; then
      redis-cli -p "$port" info replication | grep -q '^slave0:.*state=online' || return 1
    fi
  done
}

down() {
  local port pid
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    pid=$(cat "$DIR/$port/redis.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = redis-server ]; then
      kill "$pid"
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  rm -rf "$DIR"
  [ "${1:-}" = quiet ] || say "Redis Cluster stopped"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  start)
    [[ " ${REDIS_CLUSTER_PORTS[*]} " == *" ${2:-none} "* ]] || die "start: want one of ${REDIS_CLUSTER_PORTS[*]}"
    [ -f "$DIR/$2/nodes.conf" ] || die "start: node $2 was never part of the cluster (make up REDIS=cluster)"
    port_open 127.0.0.1 "$2" && die "port $2 is taken"
    start_node "$2"
    ;;
  *) die "usage: $0 up|down|start PORT" ;;
esac
