#!/usr/bin/env bash
# Starts (or stops) a throwaway etcd + kube-apiserver on loopback for chart tests: no kubelet and no
# controllers, so objects are stored and validated but nothing runs.
#   tools/kube/apiserver.sh start DIR BIN   # writes DIR/kubeconfig, returns once /readyz answers
#   tools/kube/apiserver.sh stop DIR
# Ports: KUBE_TEST_APISERVER_PORT (default 16443), KUBE_TEST_ETCD_PORT (default 12379, peer +1).
set -euo pipefail
cmd=$1 dir=$2
api_port=${KUBE_TEST_APISERVER_PORT:-16443}
etcd_port=${KUBE_TEST_ETCD_PORT:-12379}

# stop ends the processes a previous start left and waits until they are gone (their ports free).
stop() {
  for p in apiserver etcd; do
    if [ -f "$dir/$p.pid" ]; then
      pid=$(cat "$dir/$p.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      rm -f "$dir/$p.pid"
    fi
  done
}

case $cmd in
stop) stop; exit 0 ;;
start) bin=$3 ;;
*) echo "usage: $0 start DIR BIN | stop DIR" >&2; exit 2 ;;
esac

stop
rm -rf "$dir/etcd" && mkdir -p "$dir/pki"
etcd --name kube-test --data-dir "$dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
  --initial-cluster "kube-test=http://127.0.0.1:$((etcd_port + 1))" >"$dir/etcd.log" 2>&1 &
echo $! >"$dir/etcd.pid"

[ -f "$dir/pki/sa.key" ] || openssl genrsa -out "$dir/pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$dir/pki/sa.key" -pubout -out "$dir/pki/sa.pub" 2>/dev/null
token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$token,chart-tests,chart-tests,system:masters" >"$dir/pki/tokens.csv"

"$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" --cert-dir "$dir/pki" \
  --token-auth-file "$dir/pki/tokens.csv" --authorization-mode AlwaysAllow \
  --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$dir/pki/sa.pub" \
  --service-account-signing-key-file "$dir/pki/sa.key" --service-cluster-ip-range 10.96.0.0/16 \
  --enable-priority-and-fairness=false >"$dir/apiserver.log" 2>&1 &
echo $! >"$dir/apiserver.pid"

cat >"$dir/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: kube-test
    cluster: {server: "https://127.0.0.1:$api_port", insecure-skip-tls-verify: true}
users:
  - name: chart-tests
    user: {token: "$token"}
contexts:
  - name: kube-test
    context: {cluster: kube-test, user: chart-tests}
current-context: kube-test
KUBECONFIG

for _ in $(seq 120); do
  if curl -sfk -H "Authorization: Bearer $token" "https://127.0.0.1:$api_port/readyz" >/dev/null; then
    exit 0
  fi
  if ! kill -0 "$(cat "$dir/apiserver.pid")" 2>/dev/null; then
    echo "kube-apiserver exited; last log lines:" >&2; tail -20 "$dir/apiserver.log" >&2; stop; exit 1
  fi
  sleep 1
done
echo "kube-apiserver not ready after 120s; last log lines:" >&2; tail -20 "$dir/apiserver.log" >&2
stop; exit 1
