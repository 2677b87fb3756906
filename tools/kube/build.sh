#!/usr/bin/env bash
# Builds the named tools (helm, kube-apiserver, promtool, kind; default the first three) at the versions pinned in
# tools/kube/go.mod, from the Go module proxy, into a cache directory keyed by go.mod and go.sum
# ($BIZASSIST_CACHE, default ~/.cache/bizassist), so a warm run only checks that they exist.
# Installs etcd from Debian when kube-apiserver is asked for and etcd is missing.
# Prints the directory with the binaries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
bin=${BIZASSIST_CACHE:-$HOME/.cache/bizassist}/kube-$key
declare -A pkg=(
  [helm]=helm.sh/helm/v3/cmd/helm
  [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
  [promtool]=github.com/prometheus/prometheus/cmd/promtool
  [kind]=sigs.k8s.io/kind
)
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(helm kube-apiserver promtool)

missing=()
for t in "${tools[@]}"; do
  [ -n "${pkg[$t]:-}" ] || { echo "build.sh: unknown tool $t" >&2; exit 2; }
  [ -x "$bin/$t" ] || missing+=("${pkg[$t]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  start=$(date +%s)
  mkdir -p "$bin"
  # One go build shares the common packages (client-go, apimachinery) between the tools.
  (cd "$here" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -o "$bin/" "${missing[@]}")
  echo "tools/kube: built ${missing[*]} in $(($(date +%s) - start))s" >&2
  # Tools built for earlier pins are never used again.
  find "$(dirname "$bin")" -maxdepth 1 -type d -regex '.*/kube-[0-9a-f]\{16\}' ! -name "kube-$key" -exec rm -rf {} +
fi
if [[ " ${tools[*]} " == *" kube-apiserver "* ]] && ! command -v etcd >/dev/null; then
  echo "tools/kube: installing etcd-server from Debian" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >&2
fi
echo "$bin"
