#!/usr/bin/env bash
# Gives the demo growth and full_stack accounts client accounts with varied histories, so health
# tiers and churn rankings show a spread at once. Waits for identity's account.created events to
# reach the projection. Idempotent: owners that have demo clients are left alone.
set -euo pipefail
exec "$DEVSTACK_BIN/analytics" demo seed
