#!/usr/bin/env bash
# Runs and times the stages of .ci/run and make test, and prints their table.
#
#   stage.sh run NAME LIMIT CMD...  run CMD as stage NAME, killed after LIMIT (timeout(1): 20m);
#                                   appends "NAME<TAB>seconds<TAB>outcome" to $STAGE_LOG
#   stage.sh table                  print $STAGE_LOG as a table, with the total
#
# STAGE_LOG defaults to .devstack/stages.tsv. A stage that fails or runs out of time still gets
# its row, so the table shows where a run stopped and what it cost until then.
set -euo pipefail
log=${STAGE_LOG:-.devstack/stages.tsv}

case ${1:-} in
run)
  [ $# -ge 4 ] || { echo "usage: stage.sh run NAME LIMIT CMD..." >&2; exit 2; }
  name=$2 limit=$3
  shift 3
  mkdir -p "$(dirname "$log")"
  printf '\n==> stage %s (at most %s)\n' "$name" "$limit"
  start=$(date +%s)
  rc=0
  # The command runs in a process group of its own, which the limit ends whole (TERM, then KILL
  # 30 s later); a TERM or INT that timeout gets is passed on to it.
  timeout -k 30s "$limit" "$@" || rc=$?
  seconds=$(($(date +%s) - start))
  case $rc in
  0) outcome=ok ;;
  124) outcome="timed out after $limit" ;;
  *) outcome="failed (exit $rc)" ;;
  esac
  printf '%s\t%d\t%s\n' "$name" "$seconds" "$outcome" >>"$log"
  printf '==> stage %s: %s in %dm%02ds\n' "$name" "$outcome" $((seconds / 60)) $((seconds % 60))
  exit "$rc"
  ;;
table)
  [ -s "$log" ] || exit 0
  printf '\n%-28s %9s  %s\n' stage time outcome
  awk -F'\t' '{ printf "%-28s %5dm%02ds  %s\n", $1, $2 / 60, $2 % 60, $3 }' "$log"
  ;;
*)
  echo "usage: stage.sh run NAME LIMIT CMD... | stage.sh table" >&2
  exit 2
  ;;
esac
