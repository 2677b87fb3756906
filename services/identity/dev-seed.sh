#!/usr/bin/env bash
# Creates the demo owner accounts of the local stack (idempotent: existing accounts are kept).
set -euo pipefail
: "${DEMO_PASSWORD:?DEMO_PASSWORD must be set by the devstack}"
while read -r email plan business; do
  printf '%s\n' "$DEMO_PASSWORD" |
    "$DEVSTACK_BIN/identity" accounts create --email "$email" --plan "$plan" --business "$business" --if-missing
done <<'ACCOUNTS'
demo-free@bizassist.local free Demo Free Bakery
demo-growth@bizassist.local growth Demo Growth Plumbing
demo-fullstack@bizassist.local full_stack Demo Full Stack Dental
ACCOUNTS
