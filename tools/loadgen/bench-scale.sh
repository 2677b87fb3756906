#!/usr/bin/env bash
# make bench-scale (issue 31): how the cost grows with the work, in one run, after make up. Each
# step prints size, time, throughput, p99 and disk or memory:
#   catalog    at each of SCALE_CATALOG_SIZES businesses (1M and 10M): the import rate of
#              SCALE_IMPORT_ROWS new rows into a catalog of that size (leads catalog import, with
#              its progress bar), the table and index size, and leads-find-selective and
#              -broadest closed and open loop (p99 at 80% of capacity). The 1M bench catalog
#              (bench-seed.sh) is grown to a size by copying its rows in SQL under new ids (the
#              search cost depends on the rows, not on how they arrived), with the secondary
#              indexes dropped and rebuilt around a large copy, as a bulk load does.
#   recompute  health of 100k and 1M accounts (analytics benchmark: time, the sweep's peak RSS)
#   usage      the usage writer's p99 at an empty and a 1M-event table (analytics benchmark), and
#              analytics-log-usage through the ingress before and after 1M events are added to the
#              stack's table
#   fan-out    one account's events to 1, 10 and 100 subscriptions, and 100 growth accounts' events
#              to 10 subscriptions each (tools/loadgen/scale; the accounts are made once with
#              identity's own command and kept, like the demo accounts)
# Designed to finish within an hour on the 2-core development machine; the 10M catalog is the long
# pole. The copies and the events added are removed at the end (SCALE_KEEP=1 keeps them), so make
# bench afterwards runs on the 1M catalog again. SCALE_STEPS picks steps (default "catalog recompute
# usage fanout"); a smoke run of the script on small sizes:
#   BENCH_SIZE=20000 SCALE_CATALOG_SIZES="50000 80000" SCALE_IMPORT_ROWS=5000 SCALE_REBUILD_OVER=10000 \
#     SCALE_STEPS="catalog fanout" SCALE_LOADGEN_ARGS="-open=false -duration 2s" tools/loadgen/bench-scale.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZES=${SCALE_CATALOG_SIZES:-"1000000 10000000"}
IMPORT_ROWS=${SCALE_IMPORT_ROWS:-100000}
COPY_BATCH=250000
REBUILD_OVER=${SCALE_REBUILD_OVER:-2000000} # copies larger than this drop and rebuild the indexes
STEPS=" ${SCALE_STEPS:-catalog recompute usage fanout} "
LOADGEN=(go run ./tools/loadgen -env .devstack/env -vacuum)
read -ra extra <<<"${SCALE_LOADGEN_ARGS:-}" # e.g. "-open=false -duration 2s" for a smoke run
LOADGEN+=("${extra[@]}")

envfile() { # the settings of one service of the running stack
  local f=.devstack/run/$1.env
  [ -f "$f" ] || { echo "bench-scale: $f not found; run make up first" >&2; exit 1; }
  mapfile -t "$2" <"$f"
}
envfile leads LEADS_ENV
envfile analytics ANALYTICS_ENV
envfile identity IDENTITY_ENV
leads_sql() { env -i "${LEADS_ENV[@]}" bash -c 'PGOPTIONS="-c search_path=$DATABASE_SCHEMA" psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -tA "$@"' psql "$@"; }
analytics_sql() { env -i "${ANALYTICS_ENV[@]}" bash -c 'PGOPTIONS="-c search_path=$DATABASE_SCHEMA" psql -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL" -tA "$@"' psql "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
# progress DONE TOTAL START: "[=====>    ]  45%  4,500,000 of 10,000,000  12,345 rows/s  7m25s left"
progress() {
  awk -v d="$1" -v t="$2" -v s="$(since "$3")" 'BEGIN {
    f = (t > 0 ? d / t : 1); w = 30; bar = ""
    for (i = 0; i < w; i++) bar = bar (i < int(f * w) ? "=" : (i == int(f * w) ? ">" : " "))
    r = (s > 0 ? d / s : 0); left = (r > 0 ? (t - d) / r : 0)
    printf "    [%s] %3.0f%%  %d of %d  %d rows/s  %dm%02ds left\n", bar, f * 100, d, t, r, left / 60, left % 60 }'
}

start_all=$(now)
summary=()

work=.devstack/leads
if [[ $STEPS == *" catalog "* ]]; then
  echo "==> catalog: the 1M bench catalog (bench-seed.sh)"
  services/leads/bench-seed.sh
  mkdir -p "$work"
  go build -o "$work/catalog-gen" ./tools/catalog-gen
  base_min=$(leads_sql -c "SELECT min(id) FROM businesses WHERE external_id LIKE 'gen7-%'")
  base_max=$(leads_sql -c "SELECT max(id) FROM businesses WHERE external_id LIKE 'gen7-%'")
  step=0
  for size in $SIZES; do
    step=$((step + 1))
    echo "==> catalog at $size businesses"
    have=$(leads_sql -c "SELECT count(*) FROM businesses WHERE external_id LIKE 'gen%'")
    need=$((size - IMPORT_ROWS - have))
    if [ "$need" -gt 0 ]; then
      echo "    growing by $need rows: copies of the bench catalog under new ids"
      t0=$(now)
      indexes=()
      if [ "$need" -gt "$REBUILD_OVER" ]; then
        mapfile -t indexes < <(leads_sql -c "SELECT indexname || '|' || indexdef FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename = 'businesses'
          AND indexname NOT IN ('businesses_pkey', 'businesses_external_id_key')")
        echo "    dropping ${#indexes[@]} secondary indexes for the copy"
        for ix in "${indexes[@]}"; do leads_sql -c "DROP INDEX ${ix%%|*}"; done
      fi
      copied=0 copy=0
      while [ "$copied" -lt "$need" ]; do
        copy=$((copy + 1))
        for ((lo = base_min; lo <= base_max && copied < need; lo += COPY_BATCH)); do
          n=$(leads_sql -c "WITH ins AS (INSERT INTO businesses (external_id, name, owner_name, email, email_domain,
              phone, website, website_domain, vertical, categories, street, city, state, zip, lat, lng, source,
              gap_score, quality, search, listed_at)
            SELECT 'gen7c$step.$copy-' || substr(external_id, 6), name, owner_name, email, email_domain, phone, website,
              website_domain, vertical, categories, street, city, state, zip, lat, lng, source, gap_score, quality,
              search, listed_at
            FROM businesses WHERE external_id LIKE 'gen7-%' AND id >= $lo AND id < $((lo + COPY_BATCH))
            ORDER BY id LIMIT $((need - copied))
            ON CONFLICT (external_id) DO NOTHING RETURNING 1) SELECT count(*) FROM ins")
          copied=$((copied + n))
          progress "$copied" "$need" "$t0"
          [ "$n" -gt 0 ] || break
        done
      done
      for ix in "${indexes[@]}"; do
        t1=$(now)
        leads_sql -c "SET maintenance_work_mem = '256MB'" -c "${ix#*|}"
        echo "    rebuilt ${ix%%|*} in $(since "$t1") s"
      done
      leads_sql -c "UPDATE catalog_version SET version = version + 1"
      echo "    grown in $(since "$t0") s ($(rate "$copied" "$(since "$t0")") rows/s, indexes included)"
    fi

    file=$work/scale-import-$step.ndjson
    seed=$((100 + step)) # ids gen10N-*, apart from the bench (gen7) and demo (gen42) catalogs
    "$work/catalog-gen" -n "$IMPORT_ROWS" -seed "$seed" -o "$file"
    echo "    importing $IMPORT_ROWS new rows (leads catalog import)"
    t0=$(now)
    env -i "${LEADS_ENV[@]}" .devstack/bin/leads catalog import "$file"
    secs=$(since "$t0")
    rm -f "$file"
    import_rate=$(rate "$IMPORT_ROWS" "$secs")
    leads_sql -c "VACUUM (ANALYZE) businesses"
    sizes=$(leads_sql -F ' ' -c "SELECT count(*), pg_relation_size('businesses') / 1048576 || 'MiB',
      pg_indexes_size('businesses') / 1048576 || 'MiB', pg_total_relation_size('businesses') / 1048576 || 'MiB' FROM businesses")
    read -r rows table_size index_size total_size <<<"$sizes"
    echo "    $rows rows; import $import_rate rows/s ($secs s); table $table_size, indexes $index_size, total $total_size"
    "${LOADGEN[@]}" -run '^leads-find-(selective|broadest)$' -duration 10s
    summary+=("catalog $rows rows: import $import_rate rows/s; table $table_size, indexes $index_size (search p99s: the open-loop table above)")
  done
fi

if [[ $STEPS == *" recompute "* ]]; then
  echo "==> health recompute at 100k and 1M accounts (analytics benchmark; peak-rss-MiB is the sweep's process)"
  (cd services/analytics && go test -run '^$' -bench 'Recompute(100k|1M)$' -benchtime 1x -timeout 60m ./internal/adapters/postgres/)
fi

if [[ $STEPS == *" usage "* ]]; then
  echo "==> usage writer at an empty and a 1M-event table (p99-ms per durable event)"
  (cd services/analytics && go test -run '^$' -bench 'UsageWriter(1M)?$' -benchtime 50000x -timeout 30m ./internal/adapters/postgres/)

  echo "==> analytics-log-usage through the ingress: the stack's table as it is, then with 1M more events"
  "${LOADGEN[@]}" -run '^analytics-log-usage$'
  t0=$(now)
  analytics_sql -c "INSERT INTO usage_events (event_id, account_id, feature, action, uses, meta, source, occurred_at)
    SELECT 'evt_scale_' || i, 'acc_scale_' || (i % 10000), (ARRAY['chat','lead_finder','lead_scoring'])[i % 3 + 1],
      'send_message', 1, '{\"n\":1}', 'api', now() - (i % 43200) * interval '1 minute'
    FROM generate_series(1, 1000000) AS i"
  echo "    added 1,000,000 events in $(since "$t0") s"
  "${LOADGEN[@]}" -run '^analytics-log-usage$'
fi

if [[ $STEPS == *" fanout "* ]]; then
  echo "==> fan-out: one account's events to 1, 10 and 100 subscriptions, 100 accounts to 10 each (tools/loadgen/scale)"
  # The env file is shell-quoted: read it as the shell does (sed kept the quotes in the password).
  password=$(. .devstack/env && printf '%s' "$DEMO_PASSWORD")
  for n in $(seq 1 100); do # scale-fanout-NNN: fanout-100x10's accounts
    email=$(printf 'scale-fanout-%03d@bizassist.local' "$n")
    printf '%s\n' "$password" | env -i "${IDENTITY_ENV[@]}" .devstack/bin/identity accounts create --if-missing \
      --email "$email" --plan growth --business "Scale Fanout $n" >/dev/null
    # Kept accounts may hold another stack's demo password.
    printf '%s\n' "$password" | env -i "${IDENTITY_ENV[@]}" .devstack/bin/identity accounts set-password "$email" >/dev/null
  done
  "${LOADGEN[@]}" -scenarios tools/loadgen/scale -open=false
fi

if [ "${SCALE_KEEP:-}" != 1 ]; then
  echo "==> removing the catalog copies, the imported rows and the added events (SCALE_KEEP=1 keeps them)"
  # REINDEX: the indexes keep the size the 10M rows gave them otherwise (3.6 GB over 1.1M rows),
  # and the next run's 1M figures were measured on them.
  leads_sql -c "DELETE FROM businesses WHERE external_id LIKE 'gen7c%' OR external_id ~ '^gen10[0-9]-'" \
    -c "UPDATE catalog_version SET version = version + 1" -c "VACUUM (ANALYZE) businesses" -c "REINDEX TABLE businesses"
  analytics_sql -c "DELETE FROM usage_events WHERE event_id LIKE 'evt_scale_%'" -c "VACUUM (ANALYZE) usage_events"
fi

echo "==> bench-scale done in $(since "$start_all") s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '    %s\n' "${summary[@]}"
