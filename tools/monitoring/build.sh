#!/usr/bin/env bash
# Builds Prometheus and Alertmanager at the versions tools/monitoring/go.mod pins (the releases
# whose promtool checks the chart's rules in tools/kube) from the Go module proxy, into a cache
# directory keyed by go.mod, go.sum and this script ($BIZASSIST_CACHE, default ~/.cache/bizassist),
# so a warm run only checks that they exist. Prints the directory with the binaries.
# Prometheus is built without its web UI's assets (the builtinassets tag needs a Node.js build):
# its HTTP API, which the tests and `curl` use, is complete.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" "$0" | sha256sum | cut -c1-16)
bin=${BIZASSIST_CACHE:-$HOME/.cache/bizassist}/monitoring-$key
mkdir -p "$(dirname "$bin")"
# One build at a time (.ci/run starts one early, in the background): a second waits, then finds it.
exec 9>"$bin.lock"
flock 9
if [ ! -x "$bin/prometheus" ] || [ ! -x "$bin/alertmanager" ]; then
  start=$(date +%s)
  mkdir -p "$bin"
  (cd "$here" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -o "$bin/" \
    github.com/prometheus/prometheus/cmd/prometheus github.com/prometheus/alertmanager/cmd/alertmanager)
  echo "tools/monitoring: built prometheus and alertmanager in $(($(date +%s) - start))s" >&2
  # Binaries built for earlier pins are never used again.
  find "$(dirname "$bin")" -maxdepth 1 -regex '.*/monitoring-[0-9a-f]\{16\}\(\.lock\)?' ! -name "monitoring-$key*" -exec rm -rf {} +
fi
echo "$bin"
