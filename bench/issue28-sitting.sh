#!/usr/bin/env bash
# The sitting of issue 28's table (docs/benchmarks.md, "Issue 28"): this tree ("after"), another
# tree's build ("before", BENCH_ENTRY) and the server we replace (Spectra-Server, built beside the
# repository, restarted for each of its runs), one after the other, each run's JSON lines appended to
# bench/results/issue28-sitting.jsonl. Run it on a quiet machine; it takes ~40 minutes.
#
#   npm run build && bash bench/issue28-sitting.sh <before tree> <Spectra-Server dir> [part...]
#
# AFTER_ENTRY=<a copy's dist/main/index.js> runs "after" from a copy (so that rebuilding this tree
# meanwhile does not change what a queued run measures); by default this tree's dist.
#
# Parts (all by default): burst (p99 A/B at M=1,000 and 1,500, pinned, alternated), cpu (CPU per
# delivered frame at M=50, 3 and 20 msg/s, unpinned, as the issue measured them), capacity (the
# ramp, pinned; the reference at 200 and 400), memory (RSS per match, 1,000 in agent select).
set -u
BEFORE=$(cd "$1" && pwd)/dist/main/index.js
REF=$(cd "$2" && pwd)
AFTER=${AFTER_ENTRY:-$PWD/dist/main/index.js}
shift 2
PARTS=${*:-burst cpu capacity memory}
OUT=bench/results/issue28-sitting.jsonl
mkdir -p bench/results
log() { echo "# $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$OUT"; }
run() { # label, then the benchmark's arguments
  local label=$1; shift
  log "$label: $*"
  npx tsx bench/broadcast.ts "$@" 2>/dev/null | grep '^{"bench"' | sed "s/^{/{\"label\":\"$label\",/" | tee -a "$OUT"
}
ab() { # the same run before and after, alternated
  BENCH_ENTRY=$BEFORE run before "$@"
  BENCH_ENTRY=$AFTER run after "$@"
}
REF_RUN=run
. "$(dirname "$0")/lib/reference.sh" # ref LABEL ARGS…: the reference, started fresh for the run

for part in $PARTS; do
  case $part in
    burst)
      for _ in 1 2; do
        ab --matches 1000 --rate 3 --duration 20 --pin 0:1
        ab --matches 1500 --rate 3 --duration 20 --pin 0:1
      done ;;
    cpu)
      ref reference --matches 50 --rate 3 --duration 30
      ab --matches 50 --rate 3 --duration 30
      ref reference --matches 50 --rate 20 --duration 30
      ab --matches 50 --rate 20 --duration 30 ;;
    capacity)
      ref reference --matches 200 --rate 3 --duration 20 --pin 0:1
      ref reference --matches 400 --rate 3 --duration 20 --pin 0:1
      BENCH_ENTRY=$AFTER run after --ramp --rate 3 --steps 1000,1500,2000,3000,4000 --duration 20 --pin 0:1
      BENCH_ENTRY=$BEFORE run before --ramp --rate 3 --steps 1000,1500,2000 --duration 20 --pin 0:1 ;;
    memory)
      ref reference --idle --matches 1000
      ab --idle --matches 1000 ;;
  esac
done
log done
