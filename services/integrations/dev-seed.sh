#!/usr/bin/env bash
# Gives the growth demo account a fresh inbound webhook secret and hands it to the stack as
# EXT_SECRET. Idempotent: every run rotates the secret and the new value replaces the old one.
# It waits for identity's account.created to reach integrations, which can lag the identity seed.
set -euo pipefail
email=${DEMO_GROWTH_EMAIL:-demo-growth@bizassist.local}
secret=$("$DEVSTACK_BIN/integrations" secrets rotate --email "$email" --wait 60s)
[ -n "$secret" ] || { echo "integrations printed no secret" >&2; exit 1; }
printf 'EXT_SECRET=%s\n' "$secret" >>"$DEVSTACK_ENV_OUT"
