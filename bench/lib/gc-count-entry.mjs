// A service entry for benchmarks that counts the process's GCs: it records perf_hooks 'gc' entries by
// kind (count and pause) and writes them every second to $GC_COUNT_DIR/gc-<NODE_ID>.json, then starts
// the built entry named by WRAP_ENTRY. Used through BENCH_ENTRY (docs/benchmarks.md, the watching
// node's receive path), e.g.:
//   WRAP_ENTRY=$PWD/dist/main/index.js BENCH_ENTRY=$PWD/bench/lib/gc-count-entry.mjs npx tsx bench/cluster.ts --nodes 3 --no-takeover --duration 30
import fs from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS = { minor: constants.NODE_PERFORMANCE_GC_MINOR, major: constants.NODE_PERFORMANCE_GC_MAJOR, incremental: constants.NODE_PERFORMANCE_GC_INCREMENTAL, weakcb: constants.NODE_PERFORMANCE_GC_WEAKCB };
const counts = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail?.kind;
    const name = Object.keys(KINDS).find((k) => KINDS[k] === kind) ?? String(kind);
    const c = (counts[name] ??= { n: 0, ms: 0 });
    c.n++;
    c.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });
const file = `${process.env.GC_COUNT_DIR ?? '/tmp'}/gc-${process.env.NODE_ID ?? process.pid}.json`;
setInterval(() => fs.writeFileSync(file, JSON.stringify({ at: Date.now(), counts })), 1000).unref();
if (!process.env.WRAP_ENTRY) throw new Error('WRAP_ENTRY: the built entry to start (dist/main/index.js)');
await import(process.env.WRAP_ENTRY);
