// Prints the top self-time functions of .cpuprofile files: `tsx bench/lib/profile-summary.ts <dir>`.
import fs from 'node:fs';
import path from 'node:path';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }
const dir = process.argv[2];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const idle = self.get('(idle) :-1') ?? 0;
  process.stdout.write(`\n${file}: busy ${((total - idle) / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s\n`);
  [...self.entries()].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 18))
    .forEach(([k, v]) => process.stdout.write(`  ${(v / 1000).toFixed(0).padStart(6)} ms  ${((v / (total - idle)) * 100).toFixed(1).padStart(5)}%  ${k}\n`));
}
