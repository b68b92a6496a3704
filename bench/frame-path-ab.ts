// The shard's frame path alone, A/B in one process (issue 28): the recorded match applied message by
// message, a frame after every message that changed the state (as at game pace, where each message
// makes its own frame on the leading edge): the layout (wireSerializeLayout) and the delta from the
// previous layout (layoutDelta), CPU time per frame. The builds of several trees are loaded side by
// side and alternated round by round (the machine's noise hits both alike); medians of the rounds.
// `--matches N` runs N copies of the match, each message applied to every copy in turn: between two
// frames of one match the others' frames went by, so its state and texts are out of the caches as at
// game pace with N matches on a shard (the figures of one match are those of warm caches).
//
//   npx tsx bench/frame-path-ab.ts --trees <before tree>,. [--rounds 15] [--matches 1]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';

const TREES = opt('trees', '.').split(',').map((t) => path.resolve(t));
const ROUNDS = Number(opt('rounds', '15'));
const MATCHES = Number(opt('matches', '1'));
const replay = recordedMatch();
const raws = replay.records.map((r) => JSON.stringify(r));
const h = replay.header;

interface Api {
  Match: { create(logon: unknown, now: number, opts: unknown): { apply(env: unknown, ts: number): unknown; stateVersion: number } };
  wireSerializeLayout(m: unknown, serverTime: number): unknown;
  layoutDelta(prev: unknown, next: unknown, editsOf?: unknown): Uint8Array | null;
  /** The serializer's patch edits for the delta, as the shard passes them (trees before 2026-11-29: none). */
  subtreeEdits: unknown;
  /** Frames made from the skeleton so far (the module's live counter). */
  skeletonFrames(): number;
}

async function load(tree: string): Promise<Api> {
  const imp = (p: string) => import(pathToFileURL(path.join(tree, 'dist', p)).href);
  const [{ Match }, wire, { layoutDelta }] = await Promise.all([imp('workers/match/match.js'), imp('workers/wire-serializer.js'), imp('codec/layout-delta.js')]);
  const patch = await imp('workers/subtree-patch.js').catch(() => ({ subtreeEdits: undefined }));
  return { Match, wireSerializeLayout: wire.wireSerializeLayout, layoutDelta, subtreeEdits: patch.subtreeEdits, skeletonFrames: () => wire.skeletonFrames ?? 0 };
}

const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };

/**
 * One pass over the recorded match: µs per frame for the layout and for the delta; how many frames
 * came from the skeleton (the rest were serialized whole) and the layout's µs for each kind.
 */
function round(api: Api): { layout: number; delta: number; frames: number; skeleton: number; layoutSkeleton: number; layoutWhole: number } {
  const ms = Array.from({ length: MATCHES }, () => api.Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam, rightTeam: h.rightTeam, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' }));
  const prev: unknown[] = ms.map(() => null);
  let layoutUs = 0, deltaUs = 0, frames = 0, skeleton = 0, skeletonUs = 0;
  for (const raw of raws) {
    for (let i = 0; i < MATCHES; i++) {
      const m = ms[i];
      const env = JSON.parse(raw) as { timestamp: number };
      const ev = m.stateVersion;
      m.apply(env, env.timestamp);
      if (m.stateVersion === ev) continue;
      const sk = api.skeletonFrames();
      const t0 = cpu();
      const layout = api.wireSerializeLayout(m, env.timestamp);
      const t1 = cpu();
      if (api.skeletonFrames() !== sk) { skeleton++; skeletonUs += t1 - t0; }
      if (prev[i] !== null) api.layoutDelta(prev[i], layout, api.subtreeEdits);
      const t2 = cpu();
      layoutUs += t1 - t0; deltaUs += t2 - t1; frames++;
      prev[i] = layout;
    }
  }
  return { layout: layoutUs / frames, delta: deltaUs / frames, frames: frames / MATCHES, skeleton: skeleton / MATCHES, layoutSkeleton: skeletonUs / skeleton, layoutWhole: (layoutUs - skeletonUs) / (frames - skeleton) };
}

const apis = await Promise.all(TREES.map(load));
const results = apis.map(() => [] as ReturnType<typeof round>[]);
for (let r = 0; r <= ROUNDS; r++) apis.forEach((api, k) => { const res = round(api); if (r > 0) results[k].push(res); }); // round 0 warms the JIT
const med = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
TREES.forEach((tree, k) => {
  const rs = results[k];
  const layout = med(rs.map((x) => x.layout)), delta = med(rs.map((x) => x.delta)), both = med(rs.map((x) => x.layout + x.delta));
  console.log(JSON.stringify({ bench: 'frame-path-ab', tree, matches: MATCHES, frames: rs[0].frames, skeletonFrames: rs[0].skeleton, layoutUs: +layout.toFixed(2), layoutSkeletonUs: +med(rs.map((x) => x.layoutSkeleton)).toFixed(2), layoutWholeUs: +med(rs.map((x) => x.layoutWhole)).toFixed(2), deltaUs: +delta.toFixed(2), frameUs: +both.toFixed(2), rounds: rs.map((x) => +(x.layout + x.delta).toFixed(1)) }));
});
process.exit(0);
