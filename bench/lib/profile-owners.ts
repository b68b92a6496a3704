// Each thread's .cpuprofile (BENCH_PROFILE=<dir>, docs/benchmarks.md) by owner: every sample goes to
// the deepest function of the service's build (dist/) on its stack, so a native leaf such as
// JSON.parse or a socket write counts for the code that called it; samples with none of ours count
// under their own leaf, in brackets. `tsx bench/lib/profile-owners.ts <dir> [top] [last seconds] [but the final
// seconds]`: the window is the last seconds of the profile, less its final ones (a service's stop).
import fs from 'node:fs';
import path from 'node:path';

interface Node { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
const dir = process.argv[2];
const TOP = Number(process.argv[3] ?? 30);
const LAST = Number(process.argv[4] ?? 0) * 1e6;
const SKIP = Number(process.argv[5] ?? 0) * 1e6;

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const from = LAST > 0 ? p.endTime - LAST : -Infinity;
  const to = p.endTime - SKIP;
  const owners = new Map<string, number>();
  let total = 0;
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    const leaf = byId.get(id)!.callFrame;
    if (t < from || t > to || leaf.functionName === '(idle)') return;
    total += dt;
    let owner = `[${leaf.functionName || '(anonymous)'}]`;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const ours = f.url.match(/\/dist\/(.*)$/);
      if (ours) { owner = `${ours[1]}:${f.functionName || '(anonymous)'}`; break; }
    }
    owners.set(owner, (owners.get(owner) ?? 0) + dt);
  });
  if (total === 0) continue;
  console.log(`${file}: busy ${(total / 1e6).toFixed(2)} s`);
  for (const [owner, us] of [...owners].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${owner}`);
  }
}
