# Sourced by the sitting scripts (bench/issue28-sitting.sh, bench/standing-sitting.sh): `ref LABEL
# ARGS…` starts the reference server (Spectra-Server, built in $REF) afresh, runs bench/broadcast.ts
# against it through the caller's `$REF_RUN LABEL ARGS…` (its own way of running and labelling a
# broadcast run), and stops it.
ref() {
  local label=$1; shift
  (cd "$REF" && INSECURE=true REQUIRE_AUTH_KEY=false exec node dist/index.js >/dev/null 2>&1) &
  local pid=$!
  for _ in $(seq 1 50); do (echo > /dev/tcp/127.0.0.1/5200) 2>/dev/null && break; sleep 0.2; done
  sleep 1
  "$REF_RUN" "$label" --target http://127.0.0.1:5100 --target-pid "$pid" "$@" # the subshell exec'd node: $pid is node's
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
}
