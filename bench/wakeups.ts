// Wake-ups of an idle service (issue 38, docs/perf/message-path.md "Wake-ups"): the built service
// with nothing connected, its threads' voluntary context switches (each one a sleep that a timer,
// a socket or another thread ended) and CPU over a window, from /proc/<pid>/task/*. The main thread
// is the one whose id is the pid; the shard thread is the busiest of the rest (bench/lib/threads.ts threadRoles).
// `BENCH_ENTRY` runs another tree's build (an A/B in one sitting).
//
//   npm run build && npx tsx bench/wakeups.ts [--seconds 20] [--settle 6] [--rounds 3]
import fs from 'node:fs';
import { opt } from './lib/args.js';
import { jsonLine, machine, table } from './lib/report.js';
import { startServiceProcess } from './lib/service.js';
import { cpuBetween, threadCpu, threadRoles } from './lib/threads.js';
import { sleep } from '../test/helpers/waits.js';

const SECONDS = Number(opt('seconds', '20'));
const SETTLE = Number(opt('settle', '6'));
const ROUNDS = Number(opt('rounds', '3'));

/** Voluntary context switches of every thread of `pid`, by thread id. */
function wakes(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      if (m) out.set(Number(tid), Number(m[1]));
    } catch { /* the thread ended */ }
  }
  return out;
}

const rows: Record<string, unknown>[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const svc = await startServiceProcess({ LOG_LEVEL: 'warn' }, process.env.BENCH_ENTRY);
  const pid = svc.child.pid!;
  await sleep(SETTLE * 1000); // the start's compilation and first collections are over
  const [w0, c0] = [wakes(pid), threadCpu(pid)];
  await sleep(SECONDS * 1000);
  const [w1, c1] = [wakes(pid), threadCpu(pid)];
  await svc.stop();
  const perSec = (tid: number) => ((w1.get(tid) ?? 0) - (w0.get(tid) ?? 0)) / SECONDS;
  const roles = threadRoles(pid, c0, c1, 1, perSec);
  const wakesOf = (list: Array<{ tid: number }>) => +list.reduce((a, t) => a + perSec(t.tid), 0).toFixed(1);
  const pctOf = (list: Array<{ user: number; kernel: number }>) => +((list.reduce((a, t) => a + t.user + t.kernel, 0) / SECONDS) * 100).toFixed(2);
  const all = cpuBetween(c0, c1);
  const row = {
    round,
    cpuPct: +(((all.user + all.kernel) / SECONDS) * 100).toFixed(2),
    mainWakesPerSec: wakesOf(roles.main), mainCpuPct: pctOf(roles.main),
    shardWakesPerSec: wakesOf(roles.shards), shardCpuPct: pctOf(roles.shards),
    helpersWakesPerSec: wakesOf(roles.helpers), helpersCpuPct: pctOf(roles.helpers),
  };
  rows.push(row);
  jsonLine({ bench: 'wakeups', entry: process.env.BENCH_ENTRY ?? 'dist', seconds: SECONDS, machine: machine(), ...row });
}
process.stdout.write('\n' + table(rows, ['round', 'cpuPct', 'mainWakesPerSec', 'mainCpuPct', 'shardWakesPerSec', 'shardCpuPct', 'helpersWakesPerSec', 'helpersCpuPct']) + '\n');
process.exit(0);
