#!/usr/bin/env bash
# Builds the named tools (helm, kube-apiserver, kind, the node's components: kubelet,
# kube-controller-manager, kube-scheduler, kube-proxy, kubectl, coredns; `node` names all of those;
# default helm, kube-apiserver and promtool) at the versions pinned in tools/kube/go.mod (Kubernetes'
# components: tools/kube/node/go.mod; CoreDNS: $COREDNS below), from the Go module proxy, into a
# cache directory keyed by go.mod, go.sum and this script ($BIZASSIST_CACHE, default
# ~/.cache/bizassist), so a warm run only checks that they exist. promtool is not built: it is
# linked from the distribution's Prometheus package (tools/monitoring/install.sh).
# Kubernetes' binaries are stamped with the pinned version (kubectl version, Helm's kubeVersion).
# Installs etcd from Debian when kube-apiserver is asked for and etcd is missing, and containerd,
# runc and the CNI plugins when the kubelet is.
# Prints the directory with the binaries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# What the binaries are made from: the pins, and $recipe, which names how they are built (bump it
# when build() changes what it produces; this script's other lines do not change the binaries).
recipe=stamped-v1
COREDNS=github.com/coredns/coredns@v1.11.3
key=$( (cat "$here/go.mod" "$here/go.sum" "$here/node/go.mod" "$here/node/go.sum"; echo "$recipe $COREDNS") | sha256sum | cut -c1-16)
bin=${BIZASSIST_CACHE:-$HOME/.cache/bizassist}/kube-$key
declare -A pkg=(
  [helm]=helm.sh/helm/v3/cmd/helm
  [kube-apiserver]=node:k8s.io/kubernetes/cmd/kube-apiserver
  [kind]=sigs.k8s.io/kind
  [kubelet]=node:k8s.io/kubernetes/cmd/kubelet
  [kube-controller-manager]=node:k8s.io/kubernetes/cmd/kube-controller-manager
  [kube-scheduler]=node:k8s.io/kubernetes/cmd/kube-scheduler
  [kube-proxy]=node:k8s.io/kubernetes/cmd/kube-proxy
  [kubectl]=node:k8s.io/kubernetes/cmd/kubectl
)
# Kubernetes' components build from a module of their own (node/go.mod): the kubelet needs
# containerd/errdefs v0.1.0 (errdefs.FromGRPC), which helm's requirements raise past. All of them
# in that one module graph compile Kubernetes' packages once (with kube-apiserver under Helm's
# graph, every package was compiled twice: the two graphs select different x/net, otel, ...).
# CoreDNS is built from its own module (its requirements would move Kubernetes' in go.mod).
node=(kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl coredns)
tools=()
for t in "$@"; do if [ "$t" = node ]; then tools+=("${node[@]}"); else tools+=("$t"); fi; done
[ ${#tools[@]} -gt 0 ] || tools=(helm kube-apiserver promtool)

wants() { [[ " ${tools[*]} " == *" $1 "* ]]; }
# find_missing sets missing and node_missing to the packages of the tools not built yet, and
# coredns_missing, node_debs_missing and etcd_missing to whether CoreDNS, the node's Debian
# packages and etcd are to install.
find_missing() {
  missing=() node_missing=() coredns_missing='' node_debs_missing='' etcd_missing=''
  for t in "${tools[@]}"; do
    [ "$t" = coredns ] || [ "$t" = promtool ] && continue
    [ -n "${pkg[$t]:-}" ] || { echo "build.sh: unknown tool $t" >&2; exit 2; }
    [ -x "$bin/$t" ] && continue
    case ${pkg[$t]} in node:*) node_missing+=("${pkg[$t]#node:}") ;; *) missing+=("${pkg[$t]}") ;; esac
  done
  if wants coredns && [ ! -x "$bin/coredns" ]; then coredns_missing=1; fi
  if wants kubelet && ! { command -v containerd && command -v runc && command -v iptables && command -v socat && [ -x /usr/lib/cni/bridge ]; } >/dev/null; then node_debs_missing=1; fi
  if wants kube-apiserver && ! command -v etcd >/dev/null; then etcd_missing=1; fi
}
# lock NAME: one build of each kind at a time (.ci/run starts one early, in the background; apt
# takes one install at a time too), each kind under its own lock, so that a caller who needs Helm
# waits for Helm's build, never for the Kubernetes components' behind it. Missing tools are
# looked for again once the lock is held: the holder before may have built them.
lock() {
  mkdir -p "$(dirname "$bin")"
  exec 9>"$(dirname "$bin")/kube-build-$1.lock"
  flock 9
  find_missing
}
unlock() { flock -u 9; }
find_missing
built=''
# build DIR PACKAGE...: one go build shares the common packages (client-go, apimachinery) between the tools.
build() {
  local dir=$1 start v major minor ldflags=""
  shift
  start=$(date +%s)
  mkdir -p "$bin"
  # Without the stamp Kubernetes' binaries report v0.0.0-master+$Format:%H$, which kubectl and Helm
  # refuse to parse. Helm's module graph has no Kubernetes module and needs none.
  if v=$(cd "$dir" && GOWORK=off go list -m -f '{{.Version}}' k8s.io/kubernetes 2>/dev/null); then
    major=${v#v}; minor=${major#*.}; major=${major%%.*}; minor=${minor%%.*}
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    done
  fi
  (cd "$dir" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bin/" "$@")
  echo "tools/kube: built $* in $(($(date +%s) - start))s" >&2
  built=1
}
if [ ${#missing[@]} -gt 0 ]; then
  lock helm
  if [ ${#missing[@]} -gt 0 ]; then build "$here" "${missing[@]}"; fi
  unlock
fi
if [ ${#node_missing[@]} -gt 0 ]; then
  lock node
  if [ ${#node_missing[@]} -gt 0 ]; then build "$here/node" "${node_missing[@]}"; fi
  unlock
fi
if [ -n "$coredns_missing" ]; then
  lock coredns
  if [ -n "$coredns_missing" ]; then
    start=$(date +%s)
    mkdir -p "$bin"
    (cd / && GOWORK=off GOFLAGS="" CGO_ENABLED=0 GOBIN="$bin" go install -trimpath "$COREDNS")
    echo "tools/kube: built $COREDNS in $(($(date +%s) - start))s" >&2
  fi
  unlock
fi
# Tools built for earlier pins are never used again.
if [ -n "$built" ]; then
  find "$(dirname "$bin")" -maxdepth 1 -type d -regex '.*/kube-[0-9a-f]\{16\}' ! -name "kube-$key" -exec rm -rf {} +
fi
if wants promtool; then
  mkdir -p "$bin"
  ln -sfn "$("$here/../monitoring/install.sh")/promtool" "$bin/promtool"
fi
if [ -n "$node_debs_missing$etcd_missing" ]; then
  lock apt
  if [ -n "$node_debs_missing" ]; then
    echo "tools/kube: installing containerd, runc, iptables, socat and the CNI plugins from Debian" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      containerd runc iptables socat containernetworking-plugins >&2
  fi
  if [ -n "$etcd_missing" ]; then
    echo "tools/kube: installing etcd-server from Debian" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >&2
  fi
  unlock
fi
echo "$bin"
