#!/usr/bin/env bash
# Unpacks the distribution's Prometheus and Alertmanager packages (Debian bookworm: Prometheus
# 2.42, with promtool, and Alertmanager 0.25) into a cache directory keyed by their versions
# ($BIZASSIST_CACHE, default ~/.cache/bizassist), without installing them: no daemon is started,
# no service user made, and no root is needed. A warm run only checks that they are there.
# Prints the directory with prometheus, promtool and alertmanager.
#
# The fault suite's Prometheus and the chart checks' promtool used to be built from source here
# (minutes of both cores on a fresh machine); the chart's rules and their unit tests pass on
# Prometheus 2.42, and tools/kube also parses every rule with Prometheus 3's parser.
set -euo pipefail
cache=${BIZASSIST_CACHE:-$HOME/.cache/bizassist}
mkdir -p "$cache"
# One unpacking at a time (.ci/run starts one early, in the background): a second waits, then finds it.
exec 9>"$cache/monitoring.lock"
flock 9
candidate() { apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p'; }
prom=$(candidate prometheus) am=$(candidate prometheus-alertmanager)
if [ -z "$prom" ] || [ "$prom" = "(none)" ] || [ -z "$am" ] || [ "$am" = "(none)" ]; then
  echo "tools/monitoring: apt knows no prometheus or prometheus-alertmanager package; updating its lists" >&2
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq >&2; else sudo apt-get update -qq >&2; fi
  prom=$(candidate prometheus) am=$(candidate prometheus-alertmanager)
fi
for v in "$prom" "$am"; do
  [ -n "$v" ] && [ "$v" != "(none)" ] || { echo "tools/monitoring: apt's sources have no prometheus or prometheus-alertmanager package" >&2; exit 1; }
done
bin=$cache/monitoring-$(printf '%s %s' "$prom" "$am" | sha256sum | cut -c1-16)
# Debian's Alertmanager reads its notification templates from the package's directory, not from
# the binary; they are put there as the package would (below).
templates=/usr/share/prometheus/alertmanager
if [ ! -x "$bin/prometheus" ] || [ ! -x "$bin/promtool" ] || [ ! -x "$bin/alertmanager" ] || [ ! -f "$bin/default.tmpl" ]; then
  start=$(date +%s)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # As root, apt would download as its _apt user, which cannot write to a private directory.
  sandbox=()
  [ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
  (cd "$tmp" && apt-get download -qq "${sandbox[@]}" "prometheus=$prom" "prometheus-alertmanager=$am" >&2)
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  rm -rf "$bin.new" && mkdir -p "$bin.new"
  cp "$tmp/root/usr/bin/prometheus" "$tmp/root/usr/bin/promtool" "$bin.new/"
  # Debian names the binary after its package; the stack runs it as alertmanager.
  cp "$tmp/root/usr/bin/prometheus-alertmanager" "$bin.new/alertmanager"
  cp "$tmp/root$templates"/*.tmpl "$bin.new/"
  rm -rf "$bin" && mv "$bin.new" "$bin"
  echo "tools/monitoring: prometheus $prom and alertmanager $am unpacked in $(($(date +%s) - start))s" >&2
  # Packages of earlier versions are never used again.
  find "$cache" -maxdepth 1 -type d -regex '.*/monitoring-[0-9a-f]\{16\}' ! -path "$bin" -exec rm -rf {} +
fi
for t in "$bin"/*.tmpl; do
  if ! cmp -s "$t" "$templates/${t##*/}"; then
    if [ "$(id -u)" -eq 0 ]; then install -D -m 644 "$t" "$templates/${t##*/}"; else sudo install -D -m 644 "$t" "$templates/${t##*/}"; fi
  fi
done
echo "$bin"
