// Micro-benchmark (one process, no lock needed): what one crash-recovery snapshot costs in the shard,
// at several points of the recorded match: snapshotText (the engine core as JSON) against the frame
// (the one-pass wire serializer), the snapshot whose state is cut out of the frame's text (issue 20),
// the snapshot that holds the frame's string literal as it is (version 2), restores of both, and
// their sizes. `npx tsx bench/snapshot-cost.ts`
import { Match } from '#built/workers/match/match.js';
import { wireSerializeMatch } from '#built/workers/wire-serializer.js';
import { frameLiteralOfWire, stateJsonOfWire } from '#built/workers/wire-text.js';
import { recordedMatch } from '#built/tools/recorded-match.js';

const replay = recordedMatch();
const h = replay.header;
const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });
const N = 400;
const points = [0.1, 0.5, 0.9];
let next = 0;
for (let i = 0; i < replay.records.length; i++) {
  const r = replay.records[i] as { timestamp: number };
  m.apply(JSON.parse(JSON.stringify(r)), Number(r.timestamp));
  if (next < points.length && i >= points[next] * replay.records.length) {
    next++;
    for (let k = 0; k < 50; k++) { m.toSnapshot(); wireSerializeMatch(m, 1); } // warm
    let t0 = process.hrtime.bigint();
    let snap = '';
    for (let k = 0; k < N; k++) snap = m.toSnapshot();
    const snapUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    t0 = process.hrtime.bigint();
    for (let k = 0; k < N; k++) JSON.stringify(m.liveState());
    const stateUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    t0 = process.hrtime.bigint();
    let wire = '';
    for (let k = 0; k < N; k++) wire = wireSerializeMatch(m, 1 + k);
    const wireUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    // Issue 20: the state's text cut out of the frame's (the latest frame is there anyway).
    t0 = process.hrtime.bigint();
    let fromFrame = '';
    for (let k = 0; k < N; k++) fromFrame = m.toSnapshot(stateJsonOfWire(wire));
    const fromFrameUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    // The frame's string literal as it is (snapshot version 2: what the shard writes now), made into
    // one flat string as postMessage would.
    t0 = process.hrtime.bigint();
    let literal = '';
    for (let k = 0; k < N; k++) { literal = m.toSnapshot({ frameLiteral: frameLiteralOfWire(wire) }); void ((literal as unknown as number) | 0); }
    const literalUs = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    // Restoring each (the price of version 2 is paid here, once per crash or takeover).
    t0 = process.hrtime.bigint();
    for (let k = 0; k < 50; k++) Match.fromSnapshot(fromFrame);
    const restoreV1Us = Number(process.hrtime.bigint() - t0) / 1e3 / 50;
    t0 = process.hrtime.bigint();
    for (let k = 0; k < 50; k++) Match.fromSnapshot(literal);
    const restoreV2Us = Number(process.hrtime.bigint() - t0) / 1e3 / 50;
    console.log(JSON.stringify({ at: points[next - 1], toSnapshotUs: +snapUs.toFixed(1), fromFrameUs: +fromFrameUs.toFixed(1), fromFrameBytes: fromFrame.length, literalUs: +literalUs.toFixed(1), literalBytes: literal.length, restoreV1Us: +restoreV1Us.toFixed(1), restoreV2Us: +restoreV2Us.toFixed(1), stateStringifyUs: +stateUs.toFixed(1), wireUs: +wireUs.toFixed(1), snapshotBytes: snap.length, wireBytes: wire.length }));
  }
}
