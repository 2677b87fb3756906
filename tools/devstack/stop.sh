#!/usr/bin/env bash
# stop.sh services: stops the stack's services and their dev-procs helpers.
# stop.sh all: that, and the stack's nginx. PostgreSQL and Redis keep running.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

what=${1:-all}
shopt -s nullglob
for f in "$RUN_DIR"/*.pid; do
  case $f in *.proc.*) continue ;; esac
  name=$(basename "$f" .pid)
  stop_pidfile "$f" "$name"
done
# Helpers go after the services that use them.
for f in "$RUN_DIR"/*.proc.*.pid; do
  name=$(basename "$f" .pid)
  stop_pidfile "$f" "${name/.proc./ helper }"
done

# Processes of this stack whose pid files are gone (rm -rf .devstack while it ran).
# shellcheck disable=SC2046
kill_pids "untracked processes of this stack" $(stack_pids "$ROOT")

if [ "$what" = all ] && pid=$(nginx_pid); then
  note "stopping the ingress (nginx pid $pid)"
  kill -QUIT "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    nginx_pid >/dev/null || break
    sleep 0.25
  done
  if nginx_pid >/dev/null; then kill -TERM "$pid" 2>/dev/null || true; fi
fi
if [ "$what" = all ]; then
  # shellcheck disable=SC2046
  kill_pids "an untracked ingress of this stack" $(stack_pids "$ROOT" nginx)
fi
