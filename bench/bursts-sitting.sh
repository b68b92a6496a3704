#!/usr/bin/env bash
# Issue 28, "Step 7" (docs/benchmarks.md): what limits capacity at M=1,500 on one core. Runs, one after
# the other, each run's JSON line appended to bench/results/bursts-sitting.jsonl with its label:
#   diag      burst timelines at M=1,500, pinned 0:1, 20 s (lib/burst-probe.mjs in the service,
#             --timeline in the generator; one directory per run under $DIAG_DIR, read with
#             `npx tsx bench/burst-report.ts <dir>`): the default, the one-core profile
#   gc        p99 A/B at M=1,500, pinned, 20 s, alternated twice, each run with its timeline: the default,
#             --single-threaded-gc, --max-semi-space-size=64, SNAPSHOT_INTERVAL_MS=5000, AFTER_ENTRY's build
#   young     the default, AFTER_ENTRY's build, and that with SHARD_YOUNG_GENERATION_MB=192, alternated twice (timelines)
#   onecore   the one-core profile (SHARD_WORKERS=0, --single-threaded-gc) against the default at
#             M=1,000, 1,500, 2,000, pinned, 20 s, alternated (A B A B)
#
#   npm run build && bash bench/bursts-sitting.sh [part...]   (parts: diag gc young onecore; default: diag gc onecore)
# ENTRY=<dist/main/index.js of a copy> runs that build (so that rebuilding the tree meanwhile changes nothing
# queued); AFTER_ENTRY: the build of a change, run as one more variant of the gc part (label "after").
set -u
ENTRY=${ENTRY:-$PWD/dist/main/index.js}
AFTER_ENTRY=${AFTER_ENTRY:-}
DIAG_DIR=${DIAG_DIR:-/tmp/bursts-diag}
PROBE=$PWD/bench/lib/burst-probe.mjs
PARTS=${*:-diag gc onecore}
OUT=bench/results/bursts-sitting.jsonl
mkdir -p bench/results
log() { echo "# $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg): $*" | tee -a "$OUT"; }
run() { # label, node flags, then the benchmark's arguments (env: the caller's)
  local label=$1 flags=$2; shift 2
  log "$label [$flags]: $*"
  BENCH_ENTRY=$ENTRY BENCH_NODE_ARGS="$flags" npx tsx bench/broadcast.ts "$@" 2>/dev/null | grep '^{"bench"' | sed "s/^{/{\"label\":\"$label\",/" | tee -a "$OUT"
}
diag() { # label, node flags: a timeline at M=1,500 (DIAG_SECONDS, 20 by default)
  local label=$1 flags=$2; shift 2
  rm -rf "$DIAG_DIR/$label" && mkdir -p "$DIAG_DIR/$label"
  BURST_PROBE_DIR=$DIAG_DIR/$label run "diag-$label" "--import $PROBE $flags" --matches "${DIAG_M:-1500}" --rate 3 --duration "${DIAG_SECONDS:-20}" --pin 0:1 --timeline "$DIAG_DIR/$label/generator.jsonl"
}
STGC=--single-threaded-gc

for part in $PARTS; do
  case $part in
    diag)
      diag default ''
      SHARD_WORKERS=0 diag onecore "$STGC" ;;
    gc)
      # with the probe (the same for every variant): each run is also a timeline
      for r in 1 2; do
        diag "default-$r" ''
        diag "stgc-$r" "$STGC"
        diag "semi64-$r" --max-semi-space-size=64
        SNAPSHOT_INTERVAL_MS=5000 diag "snap5s-$r" ''
        [ -n "$AFTER_ENTRY" ] && ENTRY=$AFTER_ENTRY diag "after-$r" ''
      done ;;
    young)
      # the shard's young generation (SHARD_YOUNG_GENERATION_MB=192: semi-spaces of 64 MB) on AFTER_ENTRY's build
      for r in 3 4; do
        diag "default-$r" ''
        ENTRY=$AFTER_ENTRY diag "after-$r" ''
        ENTRY=$AFTER_ENTRY SHARD_YOUNG_GENERATION_MB=192 diag "after-young192-$r" ''
      done ;;
    onecore)
      for _ in 1 2; do
        for m in 1000 1500 2000; do
          run default "${DEFAULT_FLAGS:-}" --matches $m --rate 3 --duration 20 --pin 0:1
          SHARD_WORKERS=0 run onecore "$STGC" --matches $m --rate 3 --duration 20 --pin 0:1
        done
      done ;;
  esac
done
log done
