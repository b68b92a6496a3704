// Prints the top self-time functions of .cpuprofile files, and their time by part (issue 20's
// breakdown): `tsx bench/lib/profile-summary.ts <dir> [top] [last seconds]`. With `last`, only the
// samples of each profile's last seconds count (a benchmark's measured window ends where the
// service is stopped, so startup and warm-up are left out).
import fs from 'node:fs';
import path from 'node:path';
import { partOf } from './profile-parts.js';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }
const dir = process.argv[2];
const TOP = Number(process.argv[3] ?? 18);
const LAST = Number(process.argv[4] ?? 0) * 1e6;

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; endTime: number; startTime: number };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const parts = new Map<string, number>();
  let total = 0;
  let t = p.startTime;
  const from = LAST > 0 ? p.endTime - LAST : -Infinity;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t < from) return;
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
    total += dt;
    self.set(key, (self.get(key) ?? 0) + dt);
    if (n.callFrame.functionName !== '(idle)') {
      const part = partOf(n.callFrame.functionName, n.callFrame.url);
      parts.set(part, (parts.get(part) ?? 0) + dt);
    }
  });
  const idle = self.get('(idle) :-1') ?? 0;
  const busy = total - idle;
  process.stdout.write(`\n${file}: busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s\n`);
  [...self.entries()].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, TOP)
    .forEach(([k, v]) => process.stdout.write(`  ${(v / 1000).toFixed(0).padStart(6)} ms  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}\n`));
  process.stdout.write('  by part:\n');
  [...parts.entries()].sort((a, b) => b[1] - a[1])
    .forEach(([k, v]) => process.stdout.write(`  ${(v / 1000).toFixed(0).padStart(6)} ms  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}\n`));
}
