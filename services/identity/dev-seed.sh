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

# One API key for the growth demo account, for make bench (credentials.yaml): the previous one is
# deleted, so repeated runs keep one. The key goes only to DEVSTACK_ENV_OUT (.devstack/env).
growth=demo-growth@bizassist.local
"$DEVSTACK_BIN/identity" accounts keys list "$growth" | awk '$2 == "demo-bench" {print $1}' |
  while read -r id; do "$DEVSTACK_BIN/identity" accounts keys delete "$growth" "$id" >/dev/null; done
key=$("$DEVSTACK_BIN/identity" accounts keys create "$growth" --name demo-bench | tail -n 1)
if [[ -n "${DEVSTACK_ENV_OUT:-}" ]]; then
  printf 'DEMO_API_KEY=%s\n' "$key" >>"$DEVSTACK_ENV_OUT"
fi
