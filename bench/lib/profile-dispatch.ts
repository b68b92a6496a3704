// What socket.io's per-event dispatch costs on the ingestion side, from the main thread's
// .cpuprofile (BENCH_PROFILE=<dir>, docs/benchmarks.md): `tsx bench/lib/profile-dispatch.ts <dir> [last seconds]`.
// Each sample goes to the owner of the deepest frame on its stack that belongs to one of the parts
// below (so a native leaf such as JSON.parse counts for the code that called it):
// - socket.io dispatch: socket.io's Client (ondata's try, ondecoded, the namespace lookup), its Socket
//   (_onpacket, onevent, dispatch, run, emitUntyped), node's EventEmitter under them, and the ticks
//   they schedule (process.nextTick's queue while it runs their callbacks);
// - the decoder (sockets/ingest-parser.js, socket.io-parser, component-emitter);
// - the direct path of branch commit 547658e (its sink and two ticks; docs/benchmarks.md, "Step 5");
// - our handlers (everything else of dist/main), engine.io, uWS, and the rest.
// Only the profile of the thread that ran the ingestion listener (the one with samples in Client.ondata) is read.
import fs from 'node:fs';
import path from 'node:path';

interface Frame { functionName: string; url: string; lineNumber: number }
interface Node { id: number; callFrame: Frame; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const dir = process.argv[2];
const LAST = Number(process.argv[3] ?? 0) * 1e6;

function partOf(f: Frame): string | null {
  const u = f.url;
  if (u.includes('/socket.io/dist/client.js') || u.includes('/socket.io/dist/socket.js') || u.includes('/socket.io/dist/typed-events.js')) return 'socket.io dispatch';
  if (u.includes('ingest-parser.js') || u.includes('socket.io-parser') || u.includes('component-emitter')) return 'decoder';
  if (u.includes('/internals/socketio.js') || u.includes('/ingest/direct-path.js')) return 'direct path (its sink and two ticks)';
  if (u.includes('/dist/main/ingest/')) return 'our ingestion handlers (ingest/)';
  if (u.includes('/dist/main/matches/') || u.includes('/dist/main/shards/')) return 'matches and shard pool (routing, hand-offs, outputs)';
  if (u.includes('/dist/')) return 'our other code';
  if (u.includes('/engine.io/')) return 'engine.io';
  if (u.includes('uWebSockets') || u.includes('uws')) return 'uWS';
  if (u.includes('/node_modules/')) return 'other libraries';
  return null; // node internals and natives: the caller's part
}

for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Profile;
  if (!p.nodes.some((n) => n.callFrame.functionName === 'ondata' && n.callFrame.url.includes('/socket.io/dist/client.js'))) continue;
  const parent = new Map<number, Node>();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const owner = new Map<number, string>();
  const ownerOf = (n: Node): string => {
    const cached = owner.get(n.id);
    if (cached !== undefined) return cached;
    let part: string | null = null;
    const name = n.callFrame.functionName;
    if (name === '(idle)' || name === '(garbage collector)' || name === '(program)') part = name;
    else {
      for (let m: Node | undefined = n; m; m = parent.get(m.id)) {
        part = partOf(m.callFrame);
        if (part) break;
        // Ticks: processTicksAndRejections itself, when it runs nothing of a part above.
        if (m.callFrame.functionName === 'processTicksAndRejections') { part = 'ticks (process.nextTick queue)'; break; }
      }
    }
    const out = part ?? 'node internals (event loop, timers, streams)';
    owner.set(n.id, out);
    return out;
  };
  const parts = new Map<string, number>();
  const top = new Map<string, number>();
  let t = p.startTime;
  const from = LAST > 0 ? p.endTime - LAST : -Infinity;
  let busy = 0;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t < from) return;
    const dt = p.timeDeltas[i] ?? 0;
    const part = ownerOf(byId.get(id)!);
    parts.set(part, (parts.get(part) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const key = `${part} | ${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;
    top.set(key, (top.get(key) ?? 0) + dt);
    if (part !== '(idle)') busy += dt;
  });
  process.stdout.write(`\n${file} (the ingestion thread): busy ${(busy / 1e6).toFixed(2)} s\n`);
  for (const [k, v] of [...parts.entries()].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`  ${(v / 1000).toFixed(0).padStart(7)} ms  ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  }
  if (process.env.TOP) {
    for (const [k, v] of [...top.entries()].filter(([k]) => k.startsWith(process.env.TOP!)).sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      process.stdout.write(`    ${(v / 1000).toFixed(1).padStart(7)} ms  ${k}\n`);
    }
  }
}
