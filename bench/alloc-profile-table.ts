// bench/alloc-profile-table.ts — what lib/alloc-profile.mjs recorded, per thread: the bytes each
// thread allocated in the window (collected or not), per second and per observer message when
// `--messages-per-sec` is given, by part of the service and by function (self bytes); with
// `--callers <name>`, who called the functions of that name (their callers' chains, three deep).
//
//   npx tsx bench/alloc-profile-table.ts <dir> [--top 15] [--messages-per-sec 900] [--callers join]
import fs from 'node:fs';
import path from 'node:path';
import { opt } from './lib/args.js';
import { partOf } from './lib/profile-parts.js';
import { jsonLine } from './lib/report.js';

interface Node { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }

const dir = process.argv[2];
if (!dir || dir.startsWith('--')) throw new Error('usage: alloc-profile-table.ts <dir> [--top N] [--messages-per-sec R]');
const TOP = Number(opt('top', '15'));
const RATE = Number(opt('messages-per-sec', '0'));
const CALLERS = opt('callers', '');
const kb = (bytes: number) => (bytes / 1024).toFixed(0).padStart(9);

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.heapprofile')).sort()) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { head: Node; seconds: number };
  const self = new Map<string, number>();
  const parts = new Map<string, number>();
  const callers = new Map<string, number>();
  let total = 0;
  const walk = (n: Node, stack: string[]) => {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;
    if (n.selfSize > 0) {
      self.set(key, (self.get(key) ?? 0) + n.selfSize);
      if (CALLERS && f.functionName === CALLERS) {
        const chain = [key, ...stack.slice(-3).reverse()].join(' < ');
        callers.set(chain, (callers.get(chain) ?? 0) + n.selfSize);
      }
      const part = partOf(f.functionName, f.url);
      parts.set(part, (parts.get(part) ?? 0) + n.selfSize);
      total += n.selfSize;
    }
    stack.push(key);
    for (const c of n.children) walk(c, stack);
    stack.pop();
  };
  walk(p.head, []);
  const perSec = total / p.seconds;
  jsonLine({ bench: 'alloc-profile', file, seconds: p.seconds, bytes: total, bytesPerSec: perSec, ...(RATE ? { bytesPerMessage: perSec / RATE } : {}), parts: Object.fromEntries(parts) });
  process.stdout.write(`\n${file}: ${(total / 1048576).toFixed(1)} MB in ${p.seconds.toFixed(0)} s, ${(perSec / 1048576).toFixed(2)} MB/s${RATE ? `, ${(perSec / RATE / 1024).toFixed(1)} KB a message` : ''}\n  by part (KB):\n`);
  for (const [k, v] of [...parts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${kb(v)}  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  process.stdout.write('  by function (self KB):\n');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`  ${kb(v)}  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  if (CALLERS) {
    process.stdout.write(`  ${CALLERS} by caller (self KB):\n`);
    for (const [k, v] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`  ${kb(v)}  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  }
}
