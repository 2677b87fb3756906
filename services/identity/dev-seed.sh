#!/usr/bin/env bash
# Creates the demo owner accounts of the local stack and sets their password to DEMO_PASSWORD, so
# the accounts and .devstack/env agree even when .devstack was wiped but the database was not.
set -euo pipefail
: "${DEMO_PASSWORD:?DEMO_PASSWORD must be set by the devstack}"
while read -r email plan business; do
  printf '%s\n' "$DEMO_PASSWORD" |
    "$DEVSTACK_BIN/identity" accounts create --email "$email" --plan "$plan" --business "$business" --if-missing
  printf '%s\n' "$DEMO_PASSWORD" | "$DEVSTACK_BIN/identity" accounts set-password "$email"
  "$DEVSTACK_BIN/identity" accounts set-plan "$email" "$plan" >/dev/null
done <<'ACCOUNTS'
demo-free@bizassist.local free Demo Free Bakery
demo-growth@bizassist.local growth Demo Growth Plumbing
demo-fullstack@bizassist.local full_stack Demo Full Stack Dental
ACCOUNTS
