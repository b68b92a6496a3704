// A timeline of the service's threads per 100 ms, for finding bursts (docs/benchmarks.md, issue 28
// "Step 7"). Loaded into the service with node's --import, so that the shard threads load it too
// (a Worker inherits the process's execArgv); nothing of it is in the service's own code:
//   BURST_PROBE_DIR=/tmp/bp BENCH_NODE_ARGS="--import $PWD/bench/lib/burst-probe.mjs" npx tsx bench/broadcast.ts ... --timeline /tmp/bp/generator.jsonl
// Each thread writes $BURST_PROBE_DIR/thread-<threadId>.jsonl, one line per 100 ms bin of the wall
// clock (bin = floor(Date.now() / 100)) that saw anything:
//   elu     the thread's event-loop utilization in the bin (0..1), read by a 100 ms timer
//   eld     the event loop's longest delay in the bin, ms (monitorEventLoopDelay, 10 ms resolution)
//   gcN, gcMs, gcMax, gcMajor  GC pauses that began in the bin (perf_hooks 'gc' entries), ms
//   cpuMs, waitMs, slices      the thread's CPU time, its time runnable but waiting for a core, and its
//                              time slices (/proc/thread-self/schedstat); the main thread adds procCpuMs,
//                              the whole process's CPU (shards and V8's and libuv's helper threads too)
// The main thread adds (its shard threads' `message` listeners, Worker.prototype.on wrapped):
//   outs, frames, snaps, outMs, outMax   shard outputs handled, their frames, snapshots, and the
//                                        time the handlers took (publish and the fan-out to sockets)
//   posts, cmds                          batches posted to the shards
// A shard thread adds (its port's `message` listener and postMessage, and its timers, wrapped):
//   batches, msgs, batchMs, batchMax     batches run, observer messages in them, their time
//   timerN, timerMs, timerMax            timer callbacks (the cycle every 100 ms, the frame timer), their time
//   outs, frames, framesAtTimer, snaps, postMs   outputs posted, their frames (those posted by a timer), snapshots, postMessage time
import fs from 'node:fs';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { isMainThread, parentPort, threadId, Worker } from 'node:worker_threads';

const DIR = process.env.BURST_PROBE_DIR;
if (DIR) start(DIR);

function start(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const file = `${dir}/thread-${isMainThread ? 'main' : threadId}-${process.pid}.jsonl`;
  const bins = new Map();
  const binOf = (ms) => Math.floor(ms / 100);
  const bin = (b) => {
    let x = bins.get(b);
    if (!x) bins.set(b, (x = {}));
    return x;
  };
  const add = (b, k, v) => { const x = bin(b); x[k] = (x[k] ?? 0) + v; };
  const max = (b, k, v) => { const x = bin(b); if (!(x[k] >= v)) x[k] = v; };
  const now = () => performance.timeOrigin + performance.now();

  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const b = binOf(performance.timeOrigin + e.startTime);
      add(b, 'gcN', 1);
      add(b, 'gcMs', e.duration);
      max(b, 'gcMax', e.duration);
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) add(b, 'gcMajor', e.duration);
    }
  }).observe({ entryTypes: ['gc'] });

  // This thread's time on the CPU and waiting for it (runnable, not running: the core taken by
  // another thread), ns, and its time slices, from the scheduler (/proc/thread-self/schedstat).
  const sched = () => { try { return fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ').map(Number); } catch { return [0, 0, 0]; } };
  let s0 = sched();
  let cpu0 = process.cpuUsage();
  const eld = monitorEventLoopDelay({ resolution: 10 });
  eld.enable();
  let elu = performance.eventLoopUtilization();
  const realSetInterval = globalThis.setInterval;
  realSetInterval(() => {
    const b = binOf(Date.now()) - 1; // the bin that just ended (the timer runs late by the loop's delay)
    const next = performance.eventLoopUtilization();
    max(b, 'elu', performance.eventLoopUtilization(next, elu).utilization);
    elu = next;
    max(b, 'eld', eld.max / 1e6);
    eld.reset();
    const s1 = sched();
    add(b, 'cpuMs', (s1[0] - s0[0]) / 1e6); add(b, 'waitMs', (s1[1] - s0[1]) / 1e6); add(b, 'slices', s1[2] - s0[2]);
    s0 = s1;
    if (isMainThread) { // the whole process (every thread: the shards and V8's and libuv's helpers too)
      const c1 = process.cpuUsage();
      add(b, 'procCpuMs', (c1.user - cpu0.user + c1.system - cpu0.system) / 1000);
      cpu0 = c1;
    }
  }, 100).unref();
  let final = false;
  const flush = () => {
    const lines = [];
    const done = binOf(Date.now()) - 2;
    for (const [b, x] of bins) if (final || b < done) { lines.push(JSON.stringify({ bin: b, ...x })); bins.delete(b); }
    if (lines.length) fs.appendFileSync(file, lines.join('\n') + '\n');
  };
  realSetInterval(flush, 1000).unref();
  process.on('exit', () => { final = true; flush(); });

  if (isMainThread) {
    const on = Worker.prototype.on;
    Worker.prototype.on = function (event, listener) {
      if (event !== 'message') return on.call(this, event, listener);
      return on.call(this, event, function (out) {
        const t0 = now();
        try { return listener.call(this, out); } finally {
          const ms = now() - t0, b = binOf(t0);
          add(b, 'outs', 1); add(b, 'frames', out?.codes?.length ?? 0); add(b, 'snaps', out?.snapshots?.codes?.length ?? 0);
          add(b, 'outMs', ms); max(b, 'outMax', ms);
        }
      });
    };
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (cmds, ...rest) {
      const b = binOf(Date.now());
      add(b, 'posts', 1); add(b, 'cmds', Array.isArray(cmds) ? cmds.length : 0);
      return post.call(this, cmds, ...rest);
    };
    return;
  }
  if (!parentPort) return;
  let inTimer = false;
  const timed = (fn) => function (...args) {
    const t0 = now();
    inTimer = true;
    try { return fn.apply(this, args); } finally {
      inTimer = false;
      const ms = now() - t0, b = binOf(t0);
      add(b, 'timerN', 1); add(b, 'timerMs', ms); max(b, 'timerMax', ms);
    }
  };
  globalThis.setInterval = (fn, ...rest) => realSetInterval(timed(fn), ...rest);
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ...rest) => realSetTimeout(timed(fn), ...rest);
  const port = parentPort;
  const portOn = port.on;
  port.on = function (event, listener) {
    if (event !== 'message') return portOn.call(this, event, listener);
    return portOn.call(this, event, function (cmds) {
      const t0 = now();
      try { return listener.call(this, cmds); } finally {
        const ms = now() - t0, b = binOf(t0);
        let msgs = 0;
        if (Array.isArray(cmds)) for (const c of cmds) if (c?.t === 'obs') msgs += c.count;
        add(b, 'batches', 1); add(b, 'msgs', msgs); add(b, 'batchMs', ms); max(b, 'batchMax', ms);
      }
    });
  };
  const portPost = port.postMessage;
  port.postMessage = function (out, ...rest) {
    const t0 = now();
    try { return portPost.call(this, out, ...rest); } finally {
      const b = binOf(t0), frames = out?.codes?.length ?? 0;
      add(b, 'outs', 1); add(b, 'frames', frames); if (inTimer) add(b, 'framesAtTimer', frames);
      add(b, 'snaps', out?.snapshots?.codes?.length ?? 0); add(b, 'postMs', now() - t0);
    }
  };
}
