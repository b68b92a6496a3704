#!/usr/bin/env bash
# Issue 28's ingestion path below socket.io's per-event dispatch (docs/benchmarks.md, "Step 5"),
# measured in one sitting against another tree's build ("before", BENCH_ENTRY). "After" is a build
# of the branch commit that has the path (547658e: it was measured, found too small to matter and
# reverted; `git worktree add --detach <dir> 547658e`, build it, AFTER_ENTRY=<dir>/dist/main/index.js):
#
#   npm run build && bash bench/ingest-direct-sitting.sh <before tree> [rounds] [part...]
#
# Parts (both by default; at 547658e a third, hot, ran that commit's bench/dispatch-cost.ts:
# socket.io's dispatch against the direct path per packet, in one process):
# - profile: the service's threads profiled (BENCH_PROFILE) at M=1,000 and M=50, 3 msg/s, pinned
#   `0:1`, before and after; bench/lib/profile-dispatch.ts splits the ingestion thread's time of the
#   run's last 10 s (socket.io's dispatch, the decoder, our handlers, ...), written next to the JSON.
# - ab: `--matches 1000|50 --rate 3 --duration 20 --pin 0:1`, before and after alternated (the
#   first of each pair swaps every round), `rounds` rounds (3 by default).
# JSON lines (with the load average before each run) go to bench/results/ingest-direct.jsonl.
# AFTER_ENTRY=<a copy's dist/main/index.js> runs "after" from a copy; by default this tree's dist.
# SIZES (default "1000 50") and DURATION (default 20) change the runs (a smoke test: SIZES=20 DURATION=3).
set -u
BEFORE=$(cd "$1" && pwd)/dist/main/index.js
AFTER=${AFTER_ENTRY:-$PWD/dist/main/index.js}
ROUNDS=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
PARTS=${*:-profile ab}
OUT=bench/results/ingest-direct.jsonl
PROFILES=$PWD/bench/results/ingest-direct-profiles
SIZES=${SIZES:-1000 50}
DURATION=${DURATION:-20}
mkdir -p bench/results "$PROFILES"
log() { echo "# $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$OUT"; }
run() { # label, entry, then the benchmark's arguments
  local label=$1 entry=$2; shift 2
  log "$label: $*"
  BENCH_ENTRY=$entry npx tsx bench/broadcast.ts "$@" 2>/dev/null | grep '^{"bench"' | sed "s/^{/{\"label\":\"$label\",/" | tee -a "$OUT"
}
entry() { if [ "$1" = before ]; then echo "$BEFORE"; else echo "$AFTER"; fi; }

for part in $PARTS; do
  case $part in
    profile)
      for m in $SIZES; do
        for build in before after; do
          dir=$PROFILES/$build-$m-$(date +%H%M%S)
          echo "## $dir" | tee -a "$OUT.profiles.txt"
          BENCH_PROFILE=$dir run "profile-$build" "$(entry $build)" --matches "$m" --rate 3 --duration "$(( DURATION / 2 ))" --warmup 3 --pin 0:1 --name "ingest-direct-profile"
          npx tsx bench/lib/profile-dispatch.ts "$dir" "$(( DURATION / 2 ))" | tee -a "$OUT.profiles.txt"
        done
      done ;;
    ab)
      for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then order="before after"; else order="after before"; fi
        for m in $SIZES; do
          for build in $order; do run "$build" "$(entry $build)" --matches "$m" --rate 3 --duration "$DURATION" --pin 0:1 --name "ingest-direct-ab"; done
        done
      done ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
