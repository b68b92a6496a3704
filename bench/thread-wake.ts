// What a hand-off to another thread costs when that thread is asleep (issue 38, docs/perf/message-path.md
// "Wake-ups"): a main thread hands a 6 kB string to a worker N times, every `gap` ms (the worker
// asleep in between, as a quiet shard is) or back to back (the worker busy), by `postMessage` or by
// a SharedArrayBuffer ring with `Atomics.notify` to a worker in `Atomics.waitAsync` (the design
// note's stage 3). Prints the sender's wall time per hand-off and the process's CPU per hand-off
// (both threads, /proc through process.cpuUsage), against the same loop with no hand-off.
//
//   npx tsx bench/thread-wake.ts [--count 400] [--gap 10]
import { Worker } from 'node:worker_threads';
import { opt } from './lib/args.js';
import { jsonLine, machine, table } from './lib/report.js';

const COUNT = Number(opt('count', '400'));
const GAP = Number(opt('gap', '10'));
const PAYLOAD = 'x'.repeat(6000);

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.ring) {
  const flag = new Int32Array(workerData.ring);
  let seen = 0;
  const wait = () => {
    const r = Atomics.waitAsync(flag, 0, seen);
    const go = () => { seen = Atomics.load(flag, 0); wait(); };
    if (r.async) r.value.then(go); else go();
  };
  wait();
} else {
  parentPort.on('message', () => {});
}
parentPort.postMessage('ready');
`;

type Mode = 'none' | 'postMessage' | 'ring';
async function run(mode: Mode, gap: number): Promise<{ wallUs: number; cpuUs: number }> {
  const ring = mode === 'ring' ? new SharedArrayBuffer(4 + 8192) : null;
  const w = new Worker(WORKER, { eval: true, workerData: { ring } });
  await new Promise((resolve) => w.once('message', resolve));
  const flag = ring ? new Int32Array(ring) : null;
  const bytes = ring ? new Uint8Array(ring, 4) : null;
  let wall = 0n;
  const c0 = process.cpuUsage();
  for (let i = 0; i < COUNT; i++) {
    if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
    const t = process.hrtime.bigint();
    if (mode === 'postMessage') w.postMessage([{ t: 'obs', packed: PAYLOAD }]);
    else if (mode === 'ring') {
      Buffer.from(bytes!.buffer, 4, 8192).write(PAYLOAD, 'latin1');
      Atomics.add(flag!, 0, 1);
      Atomics.notify(flag!, 0);
    }
    wall += process.hrtime.bigint() - t;
  }
  const c = process.cpuUsage(c0);
  await w.terminate();
  return { wallUs: Number(wall) / 1000 / COUNT, cpuUs: (c.user + c.system) / COUNT };
}

const rows: Record<string, unknown>[] = [];
for (const gap of [GAP, 0]) {
  const base = await run('none', gap);
  for (const mode of ['postMessage', 'ring'] as const) {
    const r = await run(mode, gap);
    const row = { worker: gap > 0 ? `asleep (${gap} ms gaps)` : 'busy (back to back)', mode, senderWallUs: +r.wallUs.toFixed(1), cpuUsPerHandOff: +(r.cpuUs - base.cpuUs).toFixed(1), cpuUsLoopAlone: +base.cpuUs.toFixed(1) };
    rows.push(row);
    jsonLine({ bench: 'thread-wake', count: COUNT, machine: machine(), ...row });
  }
}
process.stdout.write('\n' + table(rows, ['worker', 'mode', 'senderWallUs', 'cpuUsPerHandOff', 'cpuUsLoopAlone']) + '\n');
process.exit(0);
