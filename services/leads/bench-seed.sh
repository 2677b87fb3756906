#!/usr/bin/env bash
# Loads the 1,000,000-business bench catalog (tools/catalog-gen -seed 7, ids gen7-*) into the local
# stack's leads schema, next to the demo catalog, for the leads scenarios of make bench. Run it
# after make up; idempotent: skipped when the bench catalog is already there. About 5 minutes on
# two cores. Remove it with: DELETE FROM leads.businesses WHERE external_id LIKE 'gen7-%'.
set -euo pipefail
cd "$(dirname "$0")/../.."

BENCH_SEED=7
BENCH_SIZE=${BENCH_SIZE:-1000000}
envfile=.devstack/run/leads.env
[ -f "$envfile" ] || { echo "bench-seed: $envfile not found; run make up first" >&2; exit 1; }
mapfile -t envs <"$envfile"

loaded=$(env -i "${envs[@]}" bash -c 'psql "$DATABASE_URL" -tAc "SELECT count(*) FROM ${DATABASE_SCHEMA}.businesses WHERE external_id LIKE '"'gen${BENCH_SEED}-%'"'"')
if [ "$loaded" -ge "$BENCH_SIZE" ]; then
  echo "bench-seed: bench catalog already loaded ($loaded businesses)"
  exit 0
fi

work=.devstack/leads
mkdir -p "$work"
go build -o "$work/catalog-gen" ./tools/catalog-gen
"$work/catalog-gen" -n "$BENCH_SIZE" -seed "$BENCH_SEED" -o "$work/bench-catalog.ndjson"
env -i "${envs[@]}" .devstack/bin/leads catalog import "$work/bench-catalog.ndjson"
rm -f "$work/bench-catalog.ndjson"
