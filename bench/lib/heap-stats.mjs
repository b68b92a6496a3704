// A preload for the service's threads: every 10 s, each thread (main, shards, the log transport)
// appends its V8 heap spaces as one JSON line to $HEAP_STATS_FILE, the main thread with
// process.memoryUsage() and /proc/self/smaps_rollup beside them. It answers what RSS is made of, by
// thread, which a heap snapshot (one thread, live objects only) does not (docs/perf/memory.md, "In
// play"). `--import` in BENCH_NODE_ARGS reaches the worker threads too (they inherit execArgv):
//   BENCH_NODE_ARGS="--import $PWD/bench/lib/heap-stats.mjs" HEAP_STATS_FILE=/tmp/heap.jsonl npx tsx bench/soak.ts ...
//   npx tsx bench/heap-stats-table.ts /tmp/heap.jsonl --from 480 --to 720
import fs from 'node:fs';
import v8 from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const FILE = process.env.HEAP_STATS_FILE || '/tmp/heap-stats.jsonl';
const MB = 1048576;
const t0 = Date.now();
setInterval(() => {
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = { size: s.space_size / MB, used: s.space_used_size / MB };
  const h = v8.getHeapStatistics();
  const line = { s: Math.round((Date.now() - t0) / 1000), thread: threadId, main: isMainThread, total: h.total_heap_size / MB, used: h.used_heap_size / MB, external: h.external_memory / MB, spaces };
  if (isMainThread) {
    const m = process.memoryUsage();
    line.process = { rss: m.rss / MB, arrayBuffers: m.arrayBuffers / MB };
    const smaps = {};
    for (const row of fs.readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n').slice(1)) {
      const [name, value] = row.split(':');
      if (value) smaps[name] = parseInt(value, 10) / 1024;
    }
    line.smaps = smaps;
  }
  fs.appendFileSync(FILE, JSON.stringify(line) + '\n');
}, 10_000).unref();
