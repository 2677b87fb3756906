#!/usr/bin/env bash
# The deps stage of .ci/run: every tool the later stages need, installed once and cached.
# Debian's packages (make, shellcheck, npm here; PostgreSQL, Redis, nginx, openssl and Chromium
# by make deps, which also starts PostgreSQL and Redis), every Go module of the workspace and of
# the Kubernetes tools (downloaded in parallel now, not one at a time inside the builds), the
# pinned checkers (make dev-tools) and the distribution's Prometheus and Alertmanager
# (tools/monitoring/install.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
missing=()
command -v make >/dev/null || missing+=(make)
command -v shellcheck >/dev/null || missing+=(shellcheck)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
make deps
echo "==> go mod download: the workspace, tools/kube, tools/kube/node, tools/images"
go mod download
for m in tools/kube tools/kube/node tools/images; do (cd "$m" && GOWORK=off go mod download); done
make dev-tools
echo "==> Prometheus and Alertmanager: $(tools/monitoring/install.sh)"
