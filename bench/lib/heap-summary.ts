// What a V8 heap snapshot holds, by kind: self sizes summed by constructor (objects, closures,
// arrays; a plain object by its first three members) or string kind, and each node's first retainer (the holder's constructor and the edge's
// name: `{id,type,seq}.text` is the `text` member of such an object), so that "40 MB of strings" says whose.
// For memory studies (docs/perf/memory.md); a snapshot comes from `--heapsnapshot-signal` (the
// service started with BENCH_NODE_ARGS, bench/lib/service.ts).
//
//   node --max-old-space-size=8192 --import tsx bench/lib/heap-summary.ts <file.heapsnapshot> [--top 40] [--per N]
//
// --per N divides every size by N (e.g. the live matches: bytes per match); --depth N names N
// holders up each node's first-retainer chain (1: the first holder only), for arrays and strings
// whose first holder says little (`array ← object:Array.elements`).
import fs from 'node:fs';
import { opt } from './args.js';

const file = process.argv[2];
const TOP = Number(opt('top', '40'));
const PER = Number(opt('per', '1'));
const DEPTH = Number(opt('depth', '1'));
const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[]; edges: number[]; strings: string[];
};
const { meta } = snap.snapshot;
const NF = meta.node_fields.length, EF = meta.edge_fields.length;
const nType = meta.node_fields.indexOf('type'), nName = meta.node_fields.indexOf('name'), nSize = meta.node_fields.indexOf('self_size'), nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type'), eName = meta.edge_fields.indexOf('name_or_index'), eTo = meta.edge_fields.indexOf('to_node');
const types = meta.node_types[0], edgeTypes = meta.edge_types[0];
const { nodes, edges, strings } = snap;
const count = nodes.length / NF;

/** Where each node's edges start (edges are stored node after node). */
const firstEdge = new Int32Array(count + 1);
for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * NF + nEdges] * EF;
const kindOf = (i: number): string => {
  const t = types[nodes[i * NF + nType]];
  const name = strings[nodes[i * NF + nName]];
  // A plain object is named by its first members (a StoredEvent from a subtree's cached text).
  if (t === 'object' && name === 'Object') return `{${members(i).slice(0, 3).join(',')}}`;
  if (t === 'object' || t === 'closure' || t === 'native') return `${t}:${name}`;
  return t;
};
function members(i: number): string[] {
  const out: string[] = [];
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) if (edgeTypes[edges[e + eType]] === 'property') out.push(strings[edges[e + eName]]);
  return out;
}

// The first retainer of each node (weak edges left out): holder's kind and the edge's name.
const retainer = new Int32Array(count).fill(-1);
const retainerEdge = new Int32Array(count).fill(-1);
for (let i = 0, e = 0; i < count; i++) {
  const n = nodes[i * NF + nEdges];
  for (let k = 0; k < n; k++, e += EF) {
    if (edgeTypes[edges[e + eType]] === 'weak') continue;
    const to = edges[e + eTo] / NF;
    if (retainer[to] === -1) { retainer[to] = i; retainerEdge[to] = e; }
  }
}
const isString = (i: number): boolean => types[nodes[i * NF + nType]].endsWith('string');
const edgeName = (e: number): string => {
  const t = edgeTypes[edges[e + eType]];
  return t === 'element' || t === 'hidden' ? `[${t}]` : strings[edges[e + eName]];
};

const byKind = new Map<string, { size: number; n: number }>();
const byHolder = new Map<string, { size: number; n: number }>();
let total = 0;
for (let i = 0; i < count; i++) {
  const size = nodes[i * NF + nSize];
  total += size;
  const kind = kindOf(i);
  const a = byKind.get(kind) ?? { size: 0, n: 0 };
  a.size += size; a.n++;
  byKind.set(kind, a);
  // A string's part (of a concatenated or sliced string) counts for the string that holds it: the
  // retainer is the first holder up the chain that is not a string.
  let at = i;
  while (retainer[at] >= 0 && isString(retainer[at])) at = retainer[at];
  let holder = kind;
  for (let d = 0; d < DEPTH; d++) {
    const r = retainer[at];
    if (r < 0) { holder += ' ← (root)'; break; }
    holder += ` ← ${kindOf(r)}.${edgeName(retainerEdge[at])}`;
    at = r;
  }
  const b = byHolder.get(holder) ?? { size: 0, n: 0 };
  b.size += size; b.n++;
  byHolder.set(holder, b);
}

const show = (title: string, m: Map<string, { size: number; n: number }>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1].size - a[1].size).slice(0, TOP)) {
    process.stdout.write(`${(v.size / PER / 1024).toFixed(1).padStart(10)} KB  ${String(Math.round(v.n / PER)).padStart(8)}  ${k}\n`);
  }
};
process.stdout.write(`${file}: ${count} nodes, ${(total / 2 ** 20).toFixed(1)} MB self size${PER !== 1 ? `; sizes per ${PER}` : ''}\n`);
show('by kind (KB, count)', byKind);
show('by kind and first retainer (KB, count)', byHolder);
