#!/usr/bin/env python3
# Where one process's CPU goes, from `perf record -e cpu-clock -g -p <pid>` of the service run with
# node --perf-basic-prof (BENCH_NODE_ARGS): every sample is put in ONE part by its stack (the first
# rule that matches, innermost activity first), so the parts add up to the total; kernel samples are
# counted apart inside each part. The main thread is the pid, the shard thread the busiest other one.
#   perf script -i perf.data -F tid,ip,sym | python3 bench/lib/perf-breakdown.py <pid> [messages]
import sys
from collections import Counter, defaultdict

pid = int(sys.argv[1])
messages = float(sys.argv[2]) if len(sys.argv) > 2 else 0

MAIN = [
    ('GC (on the thread)', ['Heap::', 'Scavenge', 'MarkCompact', 'GCTracer', 'ConcurrentMarking']),
    ('thread hand-off: postMessage to the shard (batch flush)', ['MessagePort::PostMessage', 'flushNow']),
    ('frames from the shard: receive, publish, deliver to frontends', ['MessagePort::OnMessage', 'shards/output', 'broadcast/', 'frame-bus']),
    ('ingestion: uWS, engine.io, socket.io, parser, payload check, routing', ['uWS', 'engine.io', 'socket.io', 'ingest/', 'ingest-parser']),
    ('timers and ticks (other)', ['uv__run_timers', 'processTimers', 'processTicksAndRejections']),
    ('event loop: epoll, wake-ups, context switches', ['epoll', 'uv__io_poll', 'schedule', 'finish_task_switch', 'uv__async']),
]
SHARD = [
    ('GC (on the thread)', ['Heap::', 'Scavenge', 'MarkCompact', 'GCTracer']),
    ('thread hand-off: post output to main', ['MessagePort::PostMessage']),
    ('snapshot round', ['takeSnapshots', 'snapshotText', 'coreToSnapshot', 'stateJson']),
    ('frame: serialize, delta', ['sendFrame', 'wireSerialize', 'layoutDelta']),
    ('apply: unpack, parse, validate, engine', ['runCommand', 'unpackObs', 'applyObs']),
    ('cycle: timers, deadlines, stats', ['runCycle']),
    ('thread hand-off: receive (deserialize, dispatch)', ['MessagePort::OnMessage', 'Deserialize', 'messageport']),
    ('event loop: epoll, wake-ups, context switches', ['epoll', 'uv__io_poll', 'schedule', 'finish_task_switch', 'uv__async']),
]

# The other threads: V8's platform threads (each TurboFan compile, GC work in parallel or
# concurrently) and libuv's pool; `other` is their idle time and what names neither.
HELPERS = [
    ('V8 compiling (TurboFan)', ['compiler::', 'OptimizingCompileDispatcher', 'Pipeline']),
    ('V8 GC work (scavenges, marking, sweeping)', ['Scaveng', 'Marking', 'Sweep', 'Heap::', 'MarkCompact']),
]

samples = []  # (tid, [symbols innermost first], kernel?)
tid = None
stack = []
kernel = False
def flush():
    if tid is not None:
        samples.append((tid, stack, kernel))
for line in sys.stdin:
    if not line.strip():
        continue
    if not line.startswith('\t') and not line.startswith(' '):
        flush()
        tid = int(line.split()[0]); stack = []; kernel = None
        continue
    parts = line.strip().split(' ', 1)
    addr = parts[0]
    sym = parts[1] if len(parts) > 1 else ''
    if kernel is None:
        kernel = addr.startswith('ffffffff')
    stack.append(sym)
flush()

by_tid = Counter(t for t, _, _ in samples)
others = [t for t, _ in by_tid.most_common() if t != pid]
shard_tid = others[0] if others else None
total = len(samples)
parts = defaultdict(lambda: [0, 0])  # part -> [samples, kernel samples]
for t, st, k in samples:
    if t == pid:
        rules, who = MAIN, 'main'
    elif t == shard_tid:
        rules, who = SHARD, 'shard'
    else:
        rules, who = HELPERS, 'helpers'
    joined = '\n'.join(st)
    name = 'other'
    for label, keys in rules:
        if any(key in joined for key in keys):
            name = label
            break
    parts[(who, name)][0] += 1
    if k:
        parts[(who, name)][1] += 1

print(f'samples {total}; main {by_tid[pid]}, shard {by_tid.get(shard_tid, 0)} (tid {shard_tid}), helpers {total - by_tid[pid] - by_tid.get(shard_tid, 0)}')
for (who, name), (n, k) in sorted(parts.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
    share = n / total * 100
    print(f'{who:8s} {share:5.1f}%  (kernel {k / total * 100:4.1f}%)  {name}')
