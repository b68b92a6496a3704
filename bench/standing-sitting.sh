#!/usr/bin/env bash
# The sitting behind docs/benchmarks.md's opening table (issue 38): where this tree's service stands
# against the server we replace (Spectra-Server, built beside the repository, started afresh for
# each of its runs) and against the floors (bench/socket-floor.ts: the same sockets and traffic with
# none of the work; the bare uWebSockets.js feed server of bench/feed-304.ts), one run after the
# other on a quiet machine. Each run's JSON line is appended, labelled, to
# bench/results/standing-sitting.jsonl; `npx tsx bench/standing-table.ts` prints the table from it.
# About 35 minutes.
#
#   npm run build && bash bench/standing-sitting.sh <Spectra-Server dir> [part...]
#
# Parts (all by default): cpu (M=50 at 3 and 20 msg/s, three rounds each, unpinned, as the reference
# was first measured), floor (CPU per message at M=1,500 against the socket floor, pinned), capacity
# (the ramp on one pinned core; the reference at 200 and 400), memory (RSS per match, 1,000 matches
# after the lobby), feed (a feed poll answered 304 against the bare server's: two runs of 16 rounds after
# 8 uncounted, each run's figure the median of its rounds), steady
# (M=50 at 20 msg/s after a 60 s warm-up: V8 done compiling the hot paths, both servers alike).
set -u
REF=$(cd "$1" && pwd)
shift
PARTS=${*:-cpu floor capacity memory feed steady}
OUT=bench/results/standing-sitting.jsonl
mkdir -p bench/results
log() { echo "# $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$OUT"; }
run() { # label, the benchmark's file, then its arguments
  local label=$1 file=$2; shift 2
  log "$label: $file $*"
  npx tsx "bench/$file" "$@" 2>/dev/null | grep '^{"bench"' | sed "s/^{/{\"label\":\"$label\",/" | tee -a "$OUT"
}
run_broadcast() { local label=$1; shift; run "$label" broadcast.ts "$@"; }
REF_RUN=run_broadcast
. "$(dirname "$0")/lib/reference.sh" # ref LABEL ARGS…: the reference, started fresh for the run

for part in $PARTS; do
  case $part in
    cpu)
      for rate in 3 20; do
        for _ in 1 2 3; do
          ref reference --matches 50 --rate "$rate" --duration 30
          run service broadcast.ts --matches 50 --rate "$rate" --duration 30
        done
      done ;;
    floor)
      run floor socket-floor.ts --matches 1500 --rate 3 --duration 20 --pin 0:1
      run service-1500 broadcast.ts --matches 1500 --rate 3 --duration 20 --pin 0:1 ;;
    capacity)
      ref reference --matches 200 --rate 3 --duration 20 --pin 0:1
      ref reference --matches 400 --rate 3 --duration 20 --pin 0:1
      run service-ramp broadcast.ts --ramp --rate 3 --steps 1000,1500,2000,3000,4000 --duration 20 --pin 0:1 ;;
    memory)
      ref reference --idle --matches 1000
      run service broadcast.ts --idle --matches 1000 ;;
    feed)
      for _ in 1 2; do run service feed-304.ts --matches 200 --pin 0:1 --warmup-rounds 8 --rounds 16; done ;;
    steady)
      for _ in 1 2 3; do
        ref reference-steady --matches 50 --rate 20 --duration 30 --warmup 60
        run service-steady broadcast.ts --matches 50 --rate 20 --duration 30 --warmup 60
      done ;;
  esac
done
log done
