// A preload for the service's threads: V8's sampling heap profiler, counting the objects that
// garbage collections took as well as the live ones, over a window of the run. Each thread writes
// $ALLOC_PROFILE_DIR/alloc-<threadId>.heapprofile (DevTools' format) when the window closes:
// what the thread allocated, by function, whatever became of it (the figure that decides how far V8
// grows the young generation and how often it collects: docs/perf/memory.md, "RSS by thread").
// `--import` in BENCH_NODE_ARGS reaches the worker threads too:
//   BENCH_NODE_ARGS="--import $PWD/bench/lib/alloc-profile.mjs" ALLOC_PROFILE_DIR=/tmp/alloc ALLOC_PROFILE_AT=20 ALLOC_PROFILE_FOR=30 \
//     npx tsx bench/broadcast.ts --matches 300 --rate 3 --duration 60
//   npx tsx bench/alloc-profile-table.ts /tmp/alloc
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

const DIR = process.env.ALLOC_PROFILE_DIR || '/tmp/alloc';
const AT = Number(process.env.ALLOC_PROFILE_AT || 20) * 1000;
const FOR = Number(process.env.ALLOC_PROFILE_FOR || 30) * 1000;
const session = new Session();
session.connect();
const post = (method, params = {}) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));

setTimeout(async () => {
  await post('HeapProfiler.enable');
  // 16 KB between samples on average (V8's default is 32 KB): steadier over a 30 s window.
  await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const startedAt = Date.now();
  setTimeout(async () => {
    const { profile } = await post('HeapProfiler.stopSampling');
    fs.mkdirSync(DIR, { recursive: true });
    fs.writeFileSync(path.join(DIR, `alloc-${threadId}.heapprofile`), JSON.stringify({ ...profile, seconds: (Date.now() - startedAt) / 1000 }));
  }, FOR).unref();
}, AT).unref();
