// bench:engine — no network: the cost inside a shard, with the recorded match.
// Per message: JSON.parse + validate + apply. Per frame: serialize (fast-json-stringify), the wire
// message, the delta against the previous frame, and (for comparison) zlib on the frame alone; the
// shard's frame path (serialize with layout + delta from layouts).
import zlib from 'node:zlib';
import { jsonLine, machine, table, writeResults } from './lib/report.js';

import { Match } from '#built/workers/match/match.js';
import { serializeMatch } from '#built/workers/match/serialize.js';
import { deflateDelta, layoutDelta } from '#built/codec/layout-delta.js';
import { wireMessage } from '#built/protocol/wire.js';
import { wireSerializeFrame, wireSerializeMatch, type FrameLayout } from '#built/workers/wire-serializer.js';
import { recordedMatch } from '#built/tools/recorded-match.js';

const replay = recordedMatch();
const raws = replay.records.map((r) => JSON.stringify(r));
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** SUPPORTER=1: a supporter organisation's match (the economy record is kept for supporters only). */
const SUPPORTER = process.env.SUPPORTER === '1';

function newMatch() {
  const h = replay.header;
  return Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: SUPPORTER }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
}

const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };

// 1. Apply: parse + validate + apply every message, as the shard does (apply() runs the due timers first).
let applyMicros = 0;
let messages = 0;
for (let r = 0; r < ROUNDS; r++) {
  const m = newMatch();
  const t0 = cpu();
  for (let i = 0; i < raws.length; i++) {
    const env = JSON.parse(raws[i]) as { timestamp: number };
    m.apply(env, env.timestamp);
  }
  if (r > 0) { applyMicros += cpu() - t0; messages += raws.length; } // round 0 warms the JIT
}

// 2. Frames: the states at 100 ms steps of the recorded clock.
const m = newMatch();
const states: string[] = [];
let last = 0;
for (const raw of raws) {
  const env = JSON.parse(raw) as { timestamp: number };
  m.apply(env, env.timestamp);
  if (env.timestamp - last >= 100) { states.push(serializeMatch(m)); last = env.timestamp; }
}
// Serialize cost: re-serialize a match at a mid-game state repeatedly would hit caches; instead
// measure serializeMatch over a fresh replay, counting only serialization time.
let serializeMicros = 0;
let onePassMicros = 0;
let frames = 0;
for (let r = 0; r < ROUNDS; r++) {
  const mm = newMatch();
  let lastTs = 0;
  for (const raw of raws) {
    const env = JSON.parse(raw) as { timestamp: number };
    mm.apply(env, env.timestamp);
    if (env.timestamp - lastTs >= 100) {
      const t0 = cpu();
      serializeMatch(mm, env.timestamp);
      const t1 = cpu();
      wireSerializeMatch(mm, env.timestamp);
      if (r > 0) { serializeMicros += t1 - t0; onePassMicros += cpu() - t1; frames++; }
      lastTs = env.timestamp;
    }
  }
}
const wires = states.map((s) => Buffer.from(wireMessage(s)));
let wireMicros = 0;
for (let r = 0; r < ROUNDS; r++) { const t0 = cpu(); for (const s of states) Buffer.from(wireMessage(s)); if (r > 0) wireMicros += cpu() - t0; }
let deltaMicros = 0;
let deltaBytes = 0;
for (let r = 0; r < ROUNDS; r++) {
  const t0 = cpu();
  for (let k = 1; k < wires.length; k++) { const d = deflateDelta(wires[k - 1], wires[k]); if (r === 1) deltaBytes += d?.length ?? 0; }
  if (r > 0) deltaMicros += cpu() - t0;
}
let zlibMicros = 0;
let zlibBytes = 0;
for (let r = 0; r < Math.min(ROUNDS, 3); r++) {
  const t0 = cpu();
  for (const w of wires) { const z = zlib.deflateRawSync(w, { level: 3 }); if (r === 1) zlibBytes += z.length; }
  if (r > 0) zlibMicros += cpu() - t0;
}
const zlibRounds = Math.min(ROUNDS, 3) - 1;

// 3. The shard's frame path: one-pass serialization with the frame's layout (dirty subtrees only),
// then the delta from the two layouts (no frame bytes), per frame at 100 ms steps, fresh match per round.
let layoutSerializeMicros = 0;
let layoutDeltaMicros = 0;
let layoutDeltaBytes = 0;
let layoutFrames = 0;
let layoutDeltas = 0;
for (let r = 0; r < ROUNDS; r++) {
  const mm = newMatch();
  let lastTs = 0;
  let prev: FrameLayout | null = null;
  for (const raw of raws) {
    const env = JSON.parse(raw) as { timestamp: number };
    mm.apply(env, env.timestamp);
    if (env.timestamp - lastTs >= 100) {
      const t0 = cpu();
      const { layout } = wireSerializeFrame(mm, env.timestamp);
      const t1 = cpu();
      const d = prev ? layoutDelta(prev, layout) : null;
      const t2 = cpu();
      if (r > 0) {
        layoutSerializeMicros += t1 - t0; layoutFrames++;
        if (prev) { layoutDeltaMicros += t2 - t1; layoutDeltas++; layoutDeltaBytes += d?.length ?? 0; }
      }
      prev = layout;
      lastTs = env.timestamp;
    }
  }
}

const results = [
  { what: 'apply (parse + validate + apply)', perUnit: 'message', micros: applyMicros / messages, count: messages },
  { what: 'serialize match_data (fast-json-stringify)', perUnit: 'frame', micros: serializeMicros / frames, bytes: Math.round(states.reduce((a, s) => a + s.length, 0) / states.length), count: frames },
  { what: 'wire message from JSON (escape + bytes)', perUnit: 'frame', micros: wireMicros / ((ROUNDS - 1) * states.length), bytes: Math.round(wires.reduce((a, w) => a + w.length, 0) / wires.length) },
  { what: 'wire message in one pass (used)', perUnit: 'frame', micros: onePassMicros / frames },
  { what: 'delta deflate vs previous frame', perUnit: 'frame', micros: deltaMicros / ((ROUNDS - 1) * (wires.length - 1)), bytes: Math.round(deltaBytes / (wires.length - 1)) },
  { what: 'frame path: serialize with layout (dirty only)', perUnit: 'frame', micros: layoutSerializeMicros / layoutFrames, count: layoutFrames },
  { what: 'frame path: delta from layouts', perUnit: 'frame', micros: layoutDeltaMicros / layoutDeltas, bytes: Math.round(layoutDeltaBytes / layoutDeltas) },
  { what: 'frame path: serialize + delta', perUnit: 'frame', micros: layoutSerializeMicros / layoutFrames + layoutDeltaMicros / layoutDeltas },
  { what: 'zlib level 3, frame alone (keyframe)', perUnit: 'frame', micros: zlibMicros / (zlibRounds * wires.length), bytes: Math.round(zlibBytes / wires.length) },
];
const out = { bench: 'engine', machine: machine(), results };
for (const r of results) jsonLine({ bench: 'engine', ...r });
process.stdout.write('\n' + table(results, ['what', 'perUnit', 'micros', 'bytes']) + '\n');
process.stdout.write(`results: ${writeResults('engine', out)}\n`);
