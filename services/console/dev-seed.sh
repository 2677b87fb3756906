#!/usr/bin/env bash
# Signs the growth demo account in to the console once and hands the session cookie to the stack
# as CONSOLE_BENCH_COOKIE, for make bench's console-overview scenario. From the bench address, so
# the sign-in spends no one else's per-address budget. Idempotent: each run makes a new session
# (the old one expires after CONSOLE_SESSION_MAX_AGE).
set -euo pipefail
email=${DEMO_GROWTH_EMAIL:-demo-growth@bizassist.local}
jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
curl=(curl -sS --fail --cacert "$CA_CERT" --interface "${BENCH_SOURCE_IP:-127.0.0.9}" -c "$jar" -b "$jar")
csrf=$("${curl[@]}" "$BASE_URL/sign-in" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -n1)
[ -n "$csrf" ] || { echo "the sign-in page has no CSRF token" >&2; exit 1; }
"${curl[@]}" -o /dev/null "$BASE_URL/sign-in" --data-urlencode "csrf=$csrf" \
  --data-urlencode "email=$email" --data-urlencode "password=$DEMO_PASSWORD" --data-urlencode "next=/"
cookie=$(awk '$6 == "__Host-bza_session" {print $7}' "$jar")
[ -n "$cookie" ] || { echo "the console gave no session cookie" >&2; exit 1; }
printf 'CONSOLE_BENCH_COOKIE=__Host-bza_session=%s\n' "$cookie" >>"$DEVSTACK_ENV_OUT"
