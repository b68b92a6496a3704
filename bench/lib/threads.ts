// Where a process's CPU goes, per thread and user/kernel, from /proc/<pid>/task/*/stat: the
// breakdown of docs/benchmarks.md (issue 20). Node names none of its threads, so they are told apart
// by role: the main thread is the one whose id is the pid; the shard threads are the `shards`
// busiest of the rest (each runs an event loop the whole time); what remains is V8's platform
// threads (concurrent GC, compilation) and libuv's pool. Also pins a process to a core (taskset).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** CPU seconds of one thread: user and kernel. */
export interface ThreadCpu { user: number; kernel: number }

/** Every thread's CPU so far, by thread id. */
export function threadCpu(pid: number): Map<number, ThreadCpu> {
  const out = new Map<number, ThreadCpu>();
  let tids: string[] = [];
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { user: Number(f[11]) / 100, kernel: Number(f[12]) / 100 }); // CLK_TCK 100
    } catch { /* the thread ended */ }
  }
  return out;
}

/**
 * Every thread's CPU time so far in seconds, by thread id, from /proc/<pid>/task/<tid>/schedstat (the
 * scheduler's run time in ns: user and kernel together, exact). stat's utime and stime count in
 * clock ticks (10 ms): a few seconds' window of ~0.2 s of CPU reads ±10 % from the rounding alone.
 */
export function threadRuntime(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[] = [];
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tids) {
    try {
      out.set(Number(tid), Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9);
    } catch { /* the thread ended */ }
  }
  return out;
}

export interface CpuBreakdown { [part: string]: number }

/**
 * Each thread's CPU between two readings, split by role (see the top of this file): the main thread,
 * the `shards` busiest others, the rest. `tiebreak` orders threads of equal CPU (an idle process's
 * threads often have the same few ticks: bench/wakeups.ts passes their wake-ups).
 */
export function threadRoles(pid: number, before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>, shards: number, tiebreak: (tid: number) => number = () => 0): Record<'main' | 'shards' | 'helpers', Array<ThreadCpu & { tid: number }>> {
  const delta = [...after].map(([tid, a]) => {
    const b = before.get(tid) ?? { user: 0, kernel: 0 };
    return { tid, user: a.user - b.user, kernel: a.kernel - b.kernel };
  });
  const rest = delta.filter((d) => d.tid !== pid).sort((x, y) => (y.user + y.kernel) - (x.user + x.kernel) || tiebreak(y.tid) - tiebreak(x.tid));
  return { main: [delta.find((d) => d.tid === pid) ?? { tid: pid, user: 0, kernel: 0 }], shards: rest.slice(0, shards), helpers: rest.slice(shards) };
}

/** CPU seconds spent between two readings, by role and user/kernel (see the top of this file). */
export function breakdown(pid: number, before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>, shards: number): CpuBreakdown {
  const roles = threadRoles(pid, before, after, shards);
  const sum = (list: ThreadCpu[], k: 'user' | 'kernel') => list.reduce((a, d) => a + d[k], 0);
  return {
    mainUser: sum(roles.main, 'user'), mainKernel: sum(roles.main, 'kernel'),
    shardUser: sum(roles.shards, 'user'), shardKernel: sum(roles.shards, 'kernel'),
    helpersUser: sum(roles.helpers, 'user'), helpersKernel: sum(roles.helpers, 'kernel'),
  };
}

/** Pins every thread of `pid` (and the threads they start later) to `cpus` (taskset list, e.g. "0"). */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** CPU seconds of all the threads between two readings (threadCpu), user and kernel. */
export function cpuBetween(before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>): ThreadCpu {
  let user = 0;
  let kernel = 0;
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? { user: 0, kernel: 0 };
    user += a.user - b.user;
    kernel += a.kernel - b.kernel;
  }
  return { user, kernel };
}

/**
 * A floor benchmark's server: this script (`script`, its import.meta.url) forked again with `role`
 * first and the same arguments, pinned to `serverCore` once it sent its port; this process pinned
 * to `generatorCore` (bench/socket-floor.ts, bench/feed-floor.ts); with what else its first message said.
 */
export async function forkPinnedServer<T extends { port: number } = { port: number }>(script: string, role: string, serverCore: string, generatorCore: string): Promise<T & { child: ChildProcess }> {
  const child = fork(new URL(script).pathname, [role, ...process.argv.slice(2)], { execArgv: ['--import', 'tsx'] });
  const sent = await new Promise<T>((r) => child.once('message', (m) => r(m as T)));
  pin(child.pid!, serverCore);
  pin(process.pid, generatorCore);
  return { ...sent, child };
}
