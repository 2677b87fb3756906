#!/usr/bin/env bash
# make down: stops the services, their helpers and the ingress; PostgreSQL, Redis and the state in
# .devstack (secrets, certificates, data) stay, so make up comes back to the same stack.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ -d "$DEVSTACK_DIR" ] || { say "nothing to stop (no $DEVSTACK_DIR)"; exit 0; }
exec 9>"$DEVSTACK_DIR/lock"
flock -w 120 9 || die "another make up or make down is running on $DEVSTACK_DIR"
say "stopping bizassist"
"$ROOT/tools/devstack/stop.sh" all
say "bizassist is down"
