// What snapshots stored as deltas would save on Redis (issue 20, "all Redis traffic per frame"):
// the recorded match replayed, one snapshot per second of its clock (what a changing match writes
// at SNAPSHOT_INTERVAL_MS=1000, version 2: the frame's literal), each deflated at level 1 as the
// Redis adapter stores it (matches/snapshot-codec.ts), against a base written every `--every`
// snapshots and the others deflated with that base as the preset dictionary. Prints the average
// bytes a match writes per second both ways. One process, no service: `npx tsx bench/snapshot-delta-size.ts`
import { deflateRawSync } from 'node:zlib';
import { Match } from '#built/workers/match/match.js';
import { wireSerializeMatch } from '#built/workers/wire-serializer.js';
import { frameLiteralOfWire } from '#built/workers/wire-text.js';
import { recordedMatch } from '#built/tools/recorded-match.js';
import { opt } from './lib/args.js';
import { jsonLine, table } from './lib/report.js';

const EVERY = Number(opt('every', '10'));
const replay = recordedMatch();
const h = replay.header;
const m = Match.create({ groupCode: h.groupCode, leftTeam: h.leftTeam as never, rightTeam: h.rightTeam as never, organizationId: '', isSupporter: false }, Number(replay.records[0].timestamp), { sponsorLogoUrl: 'x' });

let lastAt = -Infinity;
let base: Buffer | null = null;
let snapshots = 0;
let plainBytes = 0;
let baseBytes = 0;
let deltaBytes = 0;
for (const record of replay.records) {
  const at = Number((record as { timestamp: number }).timestamp);
  m.apply(JSON.parse(JSON.stringify(record)), at);
  m.takeEffects();
  if (at - lastAt < 1000) continue;
  lastAt = at;
  const text = Buffer.from(m.toSnapshot({ frameLiteral: frameLiteralOfWire(wireSerializeMatch(m, at)) }));
  const plain = deflateRawSync(text, { level: 1 }).length;
  plainBytes += plain;
  if (base === null || snapshots % EVERY === 0) {
    base = text;
    baseBytes += plain;
  } else {
    deltaBytes += deflateRawSync(text, { level: 1, dictionary: base }).length;
  }
  snapshots++;
}
const bases = Math.ceil(snapshots / EVERY);
const result = {
  snapshots, every: EVERY,
  plainPerSecond: Math.round(plainBytes / snapshots),
  asDeltasPerSecond: Math.round((baseBytes + deltaBytes) / snapshots),
  deltaAverage: Math.round(deltaBytes / Math.max(1, snapshots - bases)),
};
jsonLine({ bench: 'snapshot-delta-size', ...result });
process.stdout.write('\n' + table([result], ['snapshots', 'every', 'plainPerSecond', 'asDeltasPerSecond', 'deltaAverage']) + '\n');
