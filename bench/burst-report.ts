// Joins a burst timeline (docs/benchmarks.md, issue 28 "Step 7"): the service's threads per 100 ms
// (lib/burst-probe.mjs: $BURST_PROBE_DIR/thread-*.jsonl) and the generator's bins and latency probes
// (`bench/broadcast.ts --timeline $DIR/generator.jsonl`), and prints what the slowest probes' time
// in flight held against what every probe's did, and the timeline around the slowest ones.
//
//   npx tsx bench/burst-report.ts <dir> [--around 3]
import fs from 'node:fs';
import path from 'node:path';
import { opt } from './lib/args.js';
import { percentile } from './lib/report.js';

type Bin = Record<string, number>;
const dir = process.argv[2];
const AROUND = Number(opt('around', '3'));
const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

const gen = read('generator.jsonl');
const genBins = new Map<number, Bin>();
const probes: { sent: number; recv: number; lat: number }[] = [];
for (const l of gen) {
  if (Array.isArray(l.probe)) { const [s, r] = l.probe as number[]; probes.push({ sent: s, recv: r, lat: r - s }); }
  else genBins.set(l.bin as number, l as Bin);
}
const first = Math.min(...genBins.keys()), last = Math.max(...genBins.keys());
const threads = new Map<string, Map<number, Bin>>();
for (const f of fs.readdirSync(dir).filter((f) => f.startsWith('thread-'))) {
  const bins = new Map<number, Bin>();
  for (const l of read(f)) if ((l.bin as number) >= first && (l.bin as number) <= last) bins.set(l.bin as number, l as Bin);
  const name = f.startsWith('thread-main') ? 'main' : `shard${f.split('-')[1]}`;
  threads.set(name, bins);
}
// The shard threads are those that ran batches; the other workers (none by default) are left out.
for (const [name, bins] of threads) if (name !== 'main' && ![...bins.values()].some((b) => b.batches)) threads.delete(name);

const sorted = probes.map((p) => p.lat).sort((a, b) => a - b);
const p99 = percentile(sorted, 99);
process.stdout.write(`bins ${last - first + 1} (${((last - first + 1) / 10).toFixed(1)} s), probes ${probes.length}: p50 ${percentile(sorted, 50)} p95 ${percentile(sorted, 95)} p99 ${p99} max ${sorted[sorted.length - 1]} ms\n\n`);

// One line of the run's figures (per second of the window; the comparison table of docs/benchmarks.md Step 7).
{
  const secs = (last - first + 1) / 10;
  const sum = (bins: Map<number, Bin> | undefined, k: string) => { let v = 0; for (let b = first; b <= last; b++) v += bins?.get(b)?.[k] ?? 0; return v; };
  const count = (bins: Map<number, Bin> | undefined, k: string) => { let n = 0; for (let b = first; b <= last; b++) if (bins?.get(b)?.[k]) n++; return n; };
  const maxOf = (bins: Map<number, Bin> | undefined, k: string) => { let v = 0; for (let b = first; b <= last; b++) v = Math.max(v, bins?.get(b)?.[k] ?? 0); return v; };
  const eldP99 = (bins: Map<number, Bin> | undefined) => { const v: number[] = []; for (let b = first; b <= last; b++) v.push(bins?.get(b)?.eld ?? 0); v.sort((a, c) => a - c); return percentile(v, 99); };
  const main = threads.get('main');
  const summary: Record<string, number | string> = {
    dir: path.basename(dir), p50: percentile(sorted, 50), p99, max: sorted[sorted.length - 1],
    procCpuPct: sum(main, 'procCpuMs') / secs / 10, genCpuPct: sum(genBins, 'cpuMs') / secs / 10, genEldP99: eldP99(genBins), genEldMax: maxOf(genBins, 'eld'),
    mainCpuPct: sum(main, 'cpuMs') / secs / 10, mainWaitMsPerS: sum(main, 'waitMs') / secs, mainGcMsPerS: sum(main, 'gcMs') / secs, mainGcPerS: sum(main, 'gcN') / secs,
    mainGcMax: maxOf(main, 'gcMax'), mainMajors: count(main, 'gcMajor'), mainMajorMax: maxOf(main, 'gcMajor'), mainEldP99: eldP99(main), mainOutMax: maxOf(main, 'outMax'),
  };
  for (const [name, bins] of threads) if (name !== 'main') Object.assign(summary, {
    shardCpuPct: sum(bins, 'cpuMs') / secs / 10, shardWaitMsPerS: sum(bins, 'waitMs') / secs, shardGcMsPerS: sum(bins, 'gcMs') / secs, shardGcPerS: sum(bins, 'gcN') / secs,
    shardGcMax: maxOf(bins, 'gcMax'), shardMajors: count(bins, 'gcMajor'), shardBatchMax: maxOf(bins, 'batchMax'), shardTimerMax: maxOf(bins, 'timerMax'),
  });
  process.stdout.write('summary ' + JSON.stringify(summary, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v)) + '\n\n');
}

// Per series: the distribution over the window's bins.
const series: [string, Map<number, Bin>, string[]][] = [['generator', genBins, ['sent', 'frames', 'elu', 'eld', 'cpuMs']]];
for (const [name, bins] of threads) series.push([name, bins, name === 'main'
  ? ['elu', 'eld', 'cpuMs', 'waitMs', 'slices', 'procCpuMs', 'gcMs', 'gcMax', 'gcMajor', 'outs', 'frames', 'outMs', 'outMax', 'snaps', 'posts']
  : ['elu', 'eld', 'cpuMs', 'waitMs', 'slices', 'gcMs', 'gcMax', 'gcMajor', 'batches', 'msgs', 'batchMs', 'batchMax', 'timerMs', 'timerMax', 'frames', 'framesAtTimer', 'postMs']]);
process.stdout.write('series            key        mean      p50      p90      p99      max\n');
for (const [name, bins, keys] of series) {
  for (const k of keys) {
    const vals: number[] = [];
    for (let b = first; b <= last; b++) vals.push(bins.get(b)?.[k] ?? 0);
    vals.sort((a, b) => a - b);
    const mean = vals.reduce((a, v) => a + v, 0) / vals.length;
    process.stdout.write(`${name.padEnd(16)} ${k.padEnd(13)} ${[mean, percentile(vals, 50), percentile(vals, 90), percentile(vals, 99), vals[vals.length - 1]].map((v) => v.toFixed(1).padStart(8)).join(' ')}\n`);
  }
}

// What a probe's time in flight (the bins from its send to its receipt) held: the max of each key.
const inFlight = (p: { sent: number; recv: number }, bins: Map<number, Bin>, k: string) => {
  let m = 0;
  for (let b = Math.floor(p.sent / 100); b <= Math.floor(p.recv / 100); b++) m = Math.max(m, bins.get(b)?.[k] ?? 0);
  return m;
};
const slow = probes.filter((p) => p.lat >= p99);
const fast = probes.filter((p) => p.lat < percentile(sorted, 50));
process.stdout.write(`\nin flight (max over the bins from send to receipt): the slowest probes (≥ p99, ${slow.length}) against the faster half (${fast.length}); mean of each\n`);
const keysFlight: [string, string][] = [['generator', 'eld'], ['generator', 'elu'], ['main', 'eld'], ['main', 'elu'], ['main', 'waitMs'], ['main', 'procCpuMs'], ['main', 'gcMax'], ['main', 'gcMajor'], ['main', 'outMax'], ['main', 'frames']];
for (const name of threads.keys()) if (name !== 'main') keysFlight.push([name, 'eld'], [name, 'waitMs'], [name, 'gcMax'], [name, 'batchMax'], [name, 'timerMax'], [name, 'frames'], [name, 'snaps']);
for (const [name, k] of keysFlight) {
  const bins = name === 'generator' ? genBins : threads.get(name)!;
  const mean = (list: typeof probes) => list.reduce((a, p) => a + inFlight(p, bins, k), 0) / Math.max(1, list.length);
  process.stdout.write(`  ${(name + '.' + k).padEnd(22)} slow ${mean(slow).toFixed(1).padStart(8)}   fast half ${mean(fast).toFixed(1).padStart(8)}\n`);
}

// Where the slow probes were sent: the phase within the second (timers that line up show as one phase).
const phase = new Array<number>(10).fill(0);
for (const p of slow) phase[Math.floor((p.sent % 1000) / 100)]++;
process.stdout.write(`\nslow probes by send phase in the second (100 ms each): ${phase.join(' ')}\n`);

// Per second: the probes sent in it, and the largest or summed figures of the threads.
process.stdout.write('\nper second: probes sent in it (p50 / max ms); gen: eld max, cpu ms; process cpu ms; main: eld max, cpu, wait (runnable, no core) ms, gc ms (sum, max), frames, outMax; each shard: eld max, cpu, wait, gc ms (sum, max), msgs, batchMax, timerMax\n');
for (let s0 = Math.floor(first / 10); s0 <= Math.floor(last / 10); s0++) {
  const lat = probes.filter((p) => Math.floor(p.sent / 1000) === s0).map((p) => p.lat).sort((a, b) => a - b);
  const agg = (bins: Map<number, Bin> | undefined, k: string, f: 'max' | 'sum', w = 5) => {
    let v = 0;
    for (let b = s0 * 10; b < s0 * 10 + 10; b++) { const x = bins?.get(b)?.[k] ?? 0; v = f === 'max' ? Math.max(v, x) : v + x; }
    return v.toFixed(0).padStart(w);
  };
  const main = threads.get('main');
  const parts = [`${lat.length ? percentile(lat, 50) : '-'} / ${lat.length ? lat[lat.length - 1] : '-'}`.padStart(11), agg(genBins, 'eld', 'max'), agg(genBins, 'cpuMs', 'sum'), ' |', agg(main, 'procCpuMs', 'sum'), ' |',
    agg(main, 'eld', 'max'), agg(main, 'cpuMs', 'sum'), agg(main, 'waitMs', 'sum'), agg(main, 'gcMs', 'sum', 4), agg(main, 'gcMax', 'max', 4), agg(main, 'frames', 'sum', 6), agg(main, 'outMax', 'max', 4)];
  for (const [name, bins] of threads) if (name !== 'main') parts.push(' |', agg(bins, 'eld', 'max'), agg(bins, 'cpuMs', 'sum'), agg(bins, 'waitMs', 'sum'), agg(bins, 'gcMs', 'sum', 4), agg(bins, 'gcMax', 'max', 4), agg(bins, 'msgs', 'sum', 6), agg(bins, 'batchMax', 'max', 4), agg(bins, 'timerMax', 'max', 4));
  process.stdout.write(`  ${String(s0 - Math.floor(first / 10)).padStart(3)} ${parts.join(' ')}\n`);
}

// The timeline around the slowest probes.
const cols: [string, string][] = [['generator', 'sent'], ['generator', 'eld'], ['main', 'procCpuMs'], ['main', 'cpuMs'], ['main', 'waitMs'], ['main', 'eld'], ['main', 'gcMax'], ['main', 'frames'], ['main', 'outMax']];
for (const name of threads.keys()) if (name !== 'main') cols.push([name, 'cpuMs'], [name, 'waitMs'], [name, 'eld'], [name, 'gcMax'], [name, 'msgs'], [name, 'batchMax'], [name, 'timerMax'], [name, 'frames'], [name, 'snaps']);
const worst: typeof probes = [];
for (const p of [...probes].sort((a, b) => b.lat - a.lat)) {
  if (worst.length >= AROUND) break;
  if (!worst.some((w) => Math.abs(w.sent - p.sent) < 2000)) worst.push(p); // one per episode
}
for (const p of worst) {
  const b0 = Math.floor(p.sent / 100);
  process.stdout.write(`\nprobe sent at bin ${b0} (+${p.sent % 100} ms), ${p.lat} ms: bins ${b0 - 5}..${Math.floor(p.recv / 100) + 2}\n`);
  process.stdout.write('  bin ' + cols.map(([n, k]) => `${n.slice(0, 3)}.${k}`.padStart(12)).join('') + '\n');
  for (let b = b0 - 5; b <= Math.floor(p.recv / 100) + 2; b++) {
    const row = cols.map(([n, k]) => (n === 'generator' ? genBins : threads.get(n))?.get(b)?.[k] ?? 0);
    process.stdout.write(`  ${String(b - b0).padStart(3)} ${row.map((v) => v.toFixed(k2(v)).padStart(12)).join('')}\n`);
  }
}
function k2(v: number): number { return Number.isInteger(v) ? 0 : v < 1 ? 2 : 1; }
