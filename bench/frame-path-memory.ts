// Run: node --expose-gc --import tsx bench/frame-path-memory.ts (in any tree: without wireSerializeFrame it keeps the frame bytes, as prevWire did).
// Retained memory per match of the shard's frame path: 1000 matches in agent select (the recorded
// match's first 10 roster messages), one frame each, with what the shard keeps for the next delta.
import { Match } from '#built/workers/match/match.js';
import * as ws from '#built/workers/wire-serializer.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
const replay = recordedMatch();
const h = replay.header;
const roster = replay.records.filter((r) => r.type === 'roster').slice(0, 10);
const N = 1000;
const gc = (globalThis as { gc?: () => void }).gc!;
function mem() { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.external + m.arrayBuffers; }
const matches: Match[] = []; const kept: unknown[] = [];
for (let i = 0; i < N; i++) { const m = Match.create({ groupCode: 'G' + i, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, 1, { sponsorLogoUrl: 'x' }); for (const r of roster) m.apply({ ...r, groupCode: 'G' + i }, Number(r.timestamp)); matches.push(m); }
const before = mem();
for (const m of matches) {
  const f = (ws as Record<string, unknown>).wireSerializeFrame as undefined | ((m: Match, t: number) => { layout: unknown });
  if (f) kept.push(f(m, 1).layout); else kept.push(Buffer.from(ws.wireSerializeMatch(m, 1)));
}
const after = mem();
console.log(`${f0()} frame path retained per match: ${((after - before) / N / 1024).toFixed(1)} KB (matches alone ${(before / N / 1024).toFixed(1)} KB incl. module heap)`);
function f0() { return (ws as Record<string, unknown>).wireSerializeFrame ? 'after ' : 'before'; }
