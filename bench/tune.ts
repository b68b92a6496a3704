// bench:tune — the same broadcast step with SHARD_WORKERS = 1, 2, 3, … to choose the shard count.
//   npm run bench:tune -- [--shards 1,2,3] [--matches 200] [--rate 20] [--duration 15]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { jsonLine, machine, table, writeResults } from './lib/report.js';
import { opt } from './lib/args.js';

const shards = opt('shards', '1,2,3').split(',');
const pass = ['--matches', opt('matches', '200'), '--rate', opt('rate', '20'), '--duration', opt('duration', '15'), '--warmup', opt('warmup', '5')];
const rows: Record<string, unknown>[] = [];
for (const n of shards) {
  process.stderr.write(`SHARD_WORKERS=${n}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'broadcast.ts'), ...pass, '--shards', n, '--name', `tune-${n}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = run.stdout.split('\n').find((l) => l.startsWith('{"bench":"broadcast"'));
  if (!line) throw new Error(`no result for SHARD_WORKERS=${n}`);
  const r = JSON.parse(line) as Record<string, unknown>;
  rows.push(r);
  jsonLine({ bench: 'tune', ...r });
}
process.stdout.write('\n' + table(rows, ['shards', 'M', 'obsPerSec', 'delivery', 'p50', 'p99', 'cpuPct', 'cpuMicrosPerFrame', 'loopP99']) + '\n');
process.stdout.write(`results: ${writeResults('tune', { bench: 'tune', machine: machine(), rows })}\n`);
