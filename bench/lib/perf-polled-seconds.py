#!/usr/bin/env python3
# A service's CPU in the seconds it answered HTTP against the seconds it did not, from
# `perf record -e cpu-clock -F <hz> -g -p <pid>` over bench/feed-304.ts's rounds (the service and the
# floor polled in turn, 5 s each): each second of the recording counts as polled when at least 3 of
# the main thread's samples are in uWS's HTTP handler, as not polled when none are. Prints, per
# second, the main thread's, the shard's (the busiest other named thread) and V8's helper threads'
# samples in ms a second, and the helpers' GC work by V8 task (docs/perf/rest.md, "A feed poll's 304").
#   perf script -i perf.data -F tid,time,ip,sym | python3 bench/lib/perf-polled-seconds.py <pid> <hz>
import re
import sys
from collections import Counter, defaultdict

pid, hz = sys.argv[1], float(sys.argv[2])
ms = 1000.0 / hz
per = defaultdict(Counter)
threads = Counter()
TASK = re.compile(r'v8::internal::([A-Za-z:]*(?:Task|Job|Sweeper|Marking|Scaveng)[A-Za-z:]*)')
GC = re.compile(r'Heap|GC|Mark|Sweep|Scaveng|Evacuat')


def flush(block):
    if not block:
        return
    head = block[0].split()
    tid, second, frames = head[0], int(float(head[1].rstrip(':'))), block[1:]
    threads[tid] += 1
    c = per[second]
    c['tid:' + tid] += 1
    if tid == pid and any('large_handler<uWS_App_g' in f for f in frames):
        c['http'] += 1
    if tid != pid and GC.search(' '.join(frames)):
        task = next((m.group(1) for f in reversed(frames) if (m := TASK.search(f))), 'other')
        c['gc:' + task + '@' + tid] += 1


block = []
for line in sys.stdin:
    if not line.strip():
        flush(block)
        block = []
    else:
        block.append(line.strip())
flush(block)

others = [t for t, _ in threads.most_common() if t != pid]
shard = others[0] if others else None
seconds = sorted(per)[1:-1]  # the first and last are partial
groups = {'polled': [s for s in seconds if per[s]['http'] >= 3], 'not polled': [s for s in seconds if per[s]['http'] == 0]}
helper_gc = lambda s, task: sum(v for k, v in per[s].items() if k.startswith('gc:' + task + '@') and k.split('@')[1] not in (pid, shard))
tasks = sorted({k.split('@')[0][3:] for s in seconds for k in per[s] if k.startswith('gc:')})
print('seconds'.ljust(12), 'n'.rjust(4), 'main ms/s'.rjust(10), 'shard'.rjust(7), 'helpers'.rjust(8), 'helpers GC'.rjust(11), *tasks)
for name, ss in groups.items():
    n = max(1, len(ss))
    avg = lambda key: sum(per[s][key] for s in ss) * ms / n
    helpers = sum(per[s]['tid:' + t] for s in ss for t in others if t != shard) * ms / n
    by_task = [sum(helper_gc(s, t) for s in ss) * ms / n for t in tasks]
    print(name.ljust(12), str(len(ss)).rjust(4), f"{avg('tid:' + pid):10.1f}", f"{avg('tid:' + str(shard)):7.1f}", f'{helpers:8.1f}', f'{sum(by_task):11.1f}', *[f'{x:.1f}' for x in by_task])
