// The shard's work by stage of docs/perf/message-path.md, from .cpuprofile files (a thread's
// `--cpu-prof`, e.g. `node --cpu-prof --import tsx bench/shard-game-pace.ts`): every sample is put in
// ONE stage by its stack, the first rule (in the order below) naming a function anywhere on it, as
// bench/lib/perf-breakdown.py does for perf's samples; so the stages add up to the thread's busy time.
// With `usPerMsg` (the benchmark's own figure for the same run, which counts its harness too), each
// stage is also printed in µs a message, its share of the thread's busy time times that figure.
//   npx tsx bench/lib/profile-stages.ts <dir or file> [usPerMsg]
import fs from 'node:fs';
import path from 'node:path';

interface Node { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }

/** Stage, and the function names (or `file:` URL parts) that put a sample in it. */
const STAGES: [string, string[]][] = [
  ['GC (on the thread)', ['(garbage collector)']],
  ['snapshot round', ['takeSnapshots', 'snapshotText', 'snapshotState', 'snapshotInto']],
  ['6. make the frame (serializer, skeleton, cards, delta, deflate)', ['sendFrame', 'sendFrameTexts', 'wireSerializeLayout', 'layoutDelta']],
  ['5. derive events', ['file:events/', 'messageEvents']],
  ['4. apply (unpack, parse, validate, rules)', ['runCommand', 'unpackObs', 'applyObs', 'applyTo', 'file:match/']],
  ['cycle: timers, deadlines, stats', ['runCycle']],
  ['3/7. hand-offs (batch dispatch, output)', ['runBatch', 'postMessage', 'file:shard/thread']],
  ['idle', ['(idle)', '(program)']],
  // Last: what a benchmark's own loop does around the shard's calls (packing records, its clock).
  ['the benchmark (harness, loading)', ['file:bench/', 'file:esm/', 'file:cjs/']],
];

const target = process.argv[2];
const usPerMsg = process.argv[3] ? Number(process.argv[3]) : 0;
const files = fs.statSync(target).isDirectory()
  ? fs.readdirSync(target).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(target, f))
  : [target];

for (const file of files) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const names: string[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const f = byId.get(x)!.callFrame;
      names.push(f.functionName, `file:${f.url.split('/').slice(-2).join('/')}`);
    }
    const stage = STAGES.find(([, keys]) => keys.some((k) => names.some((n) => (k.startsWith('file:') ? n.startsWith(k) : n === k))))?.[0] ?? 'other';
    stageOf.set(id, stage);
    return stage;
  };
  const ms = new Map<string, number>();
  p.samples.forEach((s, i) => {
    const stage = classify(s);
    ms.set(stage, (ms.get(stage) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  const busy = [...ms].filter(([k]) => k !== 'idle').reduce((a, [, v]) => a + v, 0);
  if (busy < 1000) continue; // a thread that did nothing (the loader's)
  console.log(`\n${path.basename(file)}: busy ${(busy / 1000).toFixed(2)} s`);
  const rows = [...ms].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1]);
  for (const [stage, v] of rows) {
    const share = v / busy;
    console.log(`${(share * 100).toFixed(1).padStart(6)} %${usPerMsg ? `  ${(share * usPerMsg).toFixed(1).padStart(6)} µs` : ''}  ${stage}`);
  }
  console.log(JSON.stringify({ bench: 'profile-stages', file: path.basename(file), busyMs: Math.round(busy), usPerMsg, stages: Object.fromEntries(rows.map(([k, v]) => [k, Number(((v / busy) * 100).toFixed(1))])) }));
}
