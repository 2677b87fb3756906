#!/usr/bin/env bash
# make reset: make down, then drop the stack's database and Redis keys and remove .devstack, so the
# next make up starts from nothing. Every clone on this machine shares that database.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

"$ROOT/tools/devstack/down.sh"
"$ROOT/tools/devstack/deps.sh"
say "dropping database $DB_NAME and the stack's Redis keys"
psql_admin -d postgres -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)"
for pattern in 'bizassist:*' 'rate:rl:*'; do
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" --scan --pattern "$pattern" |
    xargs -r redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" del >/dev/null
done
say "removing $DEVSTACK_DIR"
rm -rf "$DEVSTACK_DIR"
