// bench/heap-stats-table.ts — what lib/heap-stats.mjs wrote, per thread: the median MB of each heap
// figure over a window of the run (seconds since the service started), and the process's RSS and
// anonymous memory beside them. Threads by their threadId: 0 is the main thread; a shard and the
// log transport follow (the shard is the one with the larger heap).
//
//   npx tsx bench/heap-stats-table.ts <file> [--from 480] [--to 720]
import fs from 'node:fs';
import { opt } from './lib/args.js';
import { jsonLine, table } from './lib/report.js';

interface Space { size: number; used: number }
interface Line { s: number; thread: number; total: number; used: number; external: number; spaces: Record<string, Space>; process?: { rss: number; arrayBuffers: number }; smaps?: Record<string, number> }

const file = process.argv[2];
if (!file || file.startsWith('--')) throw new Error('usage: heap-stats-table.ts <file> [--from s] [--to s]');
const FROM = Number(opt('from', '0'));
const TO = Number(opt('to', '1e9'));
const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line).filter((l) => l.s >= FROM && l.s <= TO);
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; };
const mb = (x: number) => Math.round(x * 10) / 10;

const rows = [...new Set(lines.map((l) => l.thread))].sort((a, b) => a - b).map((thread) => {
  const of = lines.filter((l) => l.thread === thread);
  const m = (f: (l: Line) => number) => mb(median(of.map(f)));
  const space = (name: string, k: keyof Space) => m((l) => l.spaces[name]?.[k] ?? 0);
  return {
    thread, samples: of.length, heapTotal: m((l) => l.total), heapUsed: m((l) => l.used),
    newSize: space('new_space', 'size'), newUsed: space('new_space', 'used'), oldSize: space('old_space', 'size'), oldUsed: space('old_space', 'used'),
    code: space('code_space', 'size'), large: space('large_object_space', 'size'), external: m((l) => l.external),
    ...(thread === 0 ? { rss: m((l) => l.process!.rss), anonymous: m((l) => l.smaps!.Anonymous), arrayBuffers: m((l) => l.process!.arrayBuffers) } : {}),
  };
});
for (const r of rows) jsonLine({ bench: 'heap-stats', file, from: FROM, to: TO, ...r });
process.stdout.write('\n' + table(rows, ['thread', 'samples', 'heapTotal', 'heapUsed', 'newSize', 'newUsed', 'oldSize', 'oldUsed', 'code', 'large', 'external', 'rss', 'anonymous', 'arrayBuffers']) + '\n');
