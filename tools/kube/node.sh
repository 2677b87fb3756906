#!/usr/bin/env bash
# A single-node Kubernetes on this machine from Kubernetes' own components (no container engine,
# no registry): containerd (its own config, root and socket) + runc + the CNI bridge, etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, CoreDNS.
#   tools/kube/node.sh up DIR BIN IMAGE_TAR...  # imports the images, returns once the node and CoreDNS are Ready
#   tools/kube/node.sh down DIR BIN             # removes everything up made; ends only the pids it wrote
# Traffic stays on this machine: the pod bridge ($bridge, $gw/24) forwards only bridge to bridge, no
# masquerade; CoreDNS answers cluster names only (no forward); the API server reaches the kubelet by
# IP; the kubelet makes no KUBE-FIREWALL chain (it drops loopback traffic not its own); kube-proxy
# serves NodePorts on the bridge address only.
set -euo pipefail
cmd=$1 dir=$2 bin=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bridge=bzk8s0 gw=10.244.0.1 subnet=10.244.0.0/24 svc=10.96.0.0/16 dns=10.96.0.10
api_port=${KUBE_NODE_APISERVER_PORT:-26443} etcd_port=${KUBE_NODE_ETCD_PORT:-22379}
sock=$dir/containerd/containerd.sock
K=("$bin/kubectl" --kubeconfig "$dir/kubeconfig")

# wait_for WHAT SECONDS CMD...: polls CMD every half second, fails after SECONDS.
wait_for() {
  local what=$1 n=$(($2 * 2))
  shift 2
  until "$@" >/dev/null 2>&1; do
    n=$((n - 1))
    [ $n -gt 0 ] || { echo "node.sh: $what not ready" >&2; return 1; }
    sleep 0.5
  done
}

# start NAME CMD...: runs CMD in the background, its pid in DIR/NAME.pid, its output in DIR/logs.
start() {
  local n=$1
  shift
  "$@" >"$dir/logs/$n.log" 2>&1 &
  echo $! >"$dir/$n.pid"
}

# stop NAME: SIGTERM to the pid start wrote, SIGKILL if it is still there after 10 s.
stop() {
  [ -f "$dir/$1.pid" ] || return 0
  local p
  p=$(cat "$dir/$1.pid")
  kill "$p" 2>/dev/null || true
  for _ in $(seq 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$p" 2>/dev/null || true
  rm -f "$dir/$1.pid"
}

pki() {
  local p=$dir/pki
  mkdir -p "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$p/ca.key" -out "$p/ca.crt" -days 2 -subj /CN=bizassist-node-ca 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$p/apiserver.key" -out "$p/apiserver.csr" -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=IP:%s,IP:10.96.0.1,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n' "$gw" >"$p/san.ext"
  openssl x509 -req -in "$p/apiserver.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial -days 2 \
    -extfile "$p/san.ext" -out "$p/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  echo "$token,node-admin,node-admin,system:masters" >"$p/tokens.csv"
  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: node, cluster: {server: "https://$gw:$api_port", certificate-authority: "$p/ca.crt"}}]
users: [{name: admin, user: {token: "$token"}}]
contexts: [{name: node, context: {cluster: node, user: admin}}]
current-context: node
EOF
}

configs() {
  mkdir -p "$dir/containerd" "$dir/cni/net.d" "$dir/logs" "$dir/pod-logs"
  # restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, so runc cannot lower oom_score_adj.
  cat >"$dir/containerd/config.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:3.10"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = ""
EOF
  cat >"$dir/cni/net.d/10-bizassist.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "bizassist", "plugins": [{"type": "bridge", "bridge": "$bridge",
  "isGateway": true, "ipMasq": false, "hairpinMode": true,
  "ipam": {"type": "host-local", "dataDir": "$dir/cni/ipam", "ranges": [[{"subnet": "$subnet", "gateway": "$gw"}]],
           "routes": [{"dst": "0.0.0.0/0"}]}}]}
EOF
  # The pods' resolver is the cluster's DNS only (the kubelet adds the nameserver and search list).
  echo "options ndots:5" >"$dir/resolv.conf"
  cat >"$dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $gw
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$sock
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
clusterDNS: [$dns]
clusterDomain: cluster.local
resolvConf: $dir/resolv.conf
podLogsDir: $dir/pod-logs
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
makeIPTablesUtilChains: false
volumePluginDir: $dir/kubelet/volume-plugins
EOF
  cat >"$dir/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $dir/kubeconfig}
mode: iptables
clusterCIDR: $subnet
nodePortAddresses: ["$gw/32"]
iptables: {localhostNodePorts: false}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
hostnameOverride: bizassist-node
EOF
}

network() {
  ip link show "$bridge" >/dev/null 2>&1 || { ip link add "$bridge" type bridge && ip addr add "$gw/24" dev "$bridge"; }
  ip link set "$bridge" up
  [ -f "$dir/ip_forward.orig" ] || sysctl -n net.ipv4.ip_forward >"$dir/ip_forward.orig"
  if ! iptables -C FORWARD -i "$bridge" -o "$bridge" -j ACCEPT 2>/dev/null; then
    iptables -I FORWARD 1 -i "$bridge" -o "$bridge" -j ACCEPT
    iptables -I FORWARD 2 -i "$bridge" -j DROP
    iptables -I FORWARD 3 -o "$bridge" -j DROP
  fi
  sysctl -qw net.ipv4.ip_forward=1
}

node_ready() {
  [ "$("${K[@]}" get node bizassist-node -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]
}

up() {
  rm -rf "$dir" && mkdir -p "$dir/logs"
  pki
  configs
  network
  start containerd containerd --config "$dir/containerd/config.toml"
  wait_for containerd 30 ctr --address "$sock" version
  for t in "$@"; do ctr --address "$sock" -n k8s.io images import "$t" >/dev/null; done
  start etcd etcd --name bizassist-node --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
    --initial-cluster "bizassist-node=http://127.0.0.1:$((etcd_port + 1))"
  start kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address "$gw" --advertise-address "$gw" --secure-port "$api_port" \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" --client-ca-file "$dir/pki/ca.crt" \
    --token-auth-file "$dir/pki/tokens.csv" --authorization-mode AlwaysAllow \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$dir/pki/sa.pub" \
    --service-account-signing-key-file "$dir/pki/sa.key" --service-cluster-ip-range "$svc" \
    --kubelet-preferred-address-types InternalIP --enable-priority-and-fairness=false
  wait_for kube-apiserver 120 "${K[@]}" get --raw /readyz
  start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$dir/kubeconfig" --bind-address 127.0.0.1 \
    --secure-port 0 --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt" \
    --use-service-account-credentials=false --allocate-node-cidrs=false --service-cluster-ip-range "$svc" \
    --leader-elect=false --flex-volume-plugin-dir "$dir/kcm-volume-plugins" --controllers '*,-cloud-node-lifecycle'
  start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$dir/kubeconfig" --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false
  start kubelet "$bin/kubelet" --config "$dir/kubelet.yaml" --kubeconfig "$dir/kubeconfig" --root-dir "$dir/kubelet" \
    --hostname-override bizassist-node --node-ip "$gw" --cert-dir "$dir/kubelet/pki"
  start kube-proxy "$bin/kube-proxy" --config "$dir/kube-proxy.yaml"
  wait_for "node Ready" 120 node_ready
  # The ServiceAccount admission refuses pods until the controller-manager made the default account.
  wait_for "default ServiceAccount" 60 "${K[@]}" get serviceaccount default
  sed "s|@DNS@|$dns|" "$here/node/coredns.yaml" | "${K[@]}" apply -f - >/dev/null
  "${K[@]}" -n kube-system rollout status deployment/coredns --timeout=120s >/dev/null
}

down() {
  # Pods first, so that the CNI DEL of each sandbox frees its address and veth.
  if [ -f "$dir/kube-apiserver.pid" ] && kill -0 "$(cat "$dir/kube-apiserver.pid")" 2>/dev/null; then
    "${K[@]}" delete deploy,sts,ds,job --all -A --wait=false >/dev/null 2>&1 || true
    "${K[@]}" delete pods --all -A --grace-period=5 --timeout=60s >/dev/null 2>&1 || true
  fi
  for n in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$n"; done
  if [ -S "$sock" ]; then
    local c
    for c in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true
    done
    for c in $(ctr --address "$sock" -n k8s.io containers ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks rm -f "$c" >/dev/null 2>&1 || true
      ctr --address "$sock" -n k8s.io containers rm "$c" >/dev/null 2>&1 || true
    done
  fi
  stop containerd
  local ns m
  for ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns del "$ns"; done
  # Mounts under the run's directory and the kubelet's fixed paths, deepest first.
  grep -oE " ($dir|/var/lib/kubelet|/run/containerd)/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  for m in /sys/fs/cgroup/kubepods /sys/fs/cgroup/*/kubepods; do
    [ -d "$m" ] && find "$m" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  [ -x "$bin/kube-proxy" ] && "$bin/kube-proxy" --cleanup >/dev/null 2>&1
  local ipt t ch
  for ipt in iptables ip6tables; do
    command -v $ipt >/dev/null || continue
    $ipt -D INPUT -j KUBE-FIREWALL 2>/dev/null; $ipt -D OUTPUT -j KUBE-FIREWALL 2>/dev/null
    for t in mangle nat filter; do
      for ch in $($ipt -t $t -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        $ipt -t $t -F "$ch" 2>/dev/null
      done
      for ch in $($ipt -t $t -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ {print $2}'); do
        $ipt -t $t -X "$ch" 2>/dev/null
      done
    done
  done
  iptables -D FORWARD -i "$bridge" -o "$bridge" -j ACCEPT 2>/dev/null
  iptables -D FORWARD -i "$bridge" -j DROP 2>/dev/null
  iptables -D FORWARD -o "$bridge" -j DROP 2>/dev/null
  if [ -f "$dir/ip_forward.orig" ]; then sysctl -qw net.ipv4.ip_forward="$(cat "$dir/ip_forward.orig")"; fi
  ip link del "$bridge" 2>/dev/null
  # State the kubelet and containerd keep at fixed paths (plugin sockets, log links, shim sockets).
  rm -rf /var/lib/kubelet /var/log/containers /var/log/pods /usr/libexec/kubernetes /run/containerd "$dir"
  return 0
}

case $cmd in
up) up "$@" ;;
down) set +e; down ;;
*) echo "usage: $0 up DIR BIN IMAGE_TAR... | down DIR BIN" >&2; exit 2 ;;
esac
