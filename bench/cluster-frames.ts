// bench:cluster-frames — a match's frames from its owner (node A) through Redis to a node that
// watches it (node B), with the recorded match's real frames (wire text + the shard's delta), a
// real redis-server and two RedisConnections in this process. Build first (`npm run build`), then
// `npx tsx bench/cluster-frames.ts`.
//
// Measured (CPU = process.cpuUsage, user + system):
//   publish   A.publish(frame): the Redis message built and handed to ioredis (socket write included)
//   receive   B's handling of one frames-channel message: decode, rebuild the frame from the delta,
//             the Frame record, delivery to a listener that takes the delta only, as a WebSocket
//             overlay with its window does (ioredis's parsing of the reply not included: see `e2e`);
//             each rebuilt frame is checked byte for byte against the recording outside the timing
//   receive, hot   the same handler over the same messages in a loop (caches warm, no I/O between)
//   e2e       the whole process per frame, paced one frame at a time: both nodes, both Redis
//             clients' I/O and the event loop (everything but redis-server)
//   burst     all frames published in one go, then the time until B had them all, per frame
//   inflate   rebuilding a frame from its delta alone: this adapter's decoder and zlib's
// Bytes through Redis: the published messages' payload (channel name and RESP framing not included).
import pino from 'pino';
import { jsonLine, machine, percentile, table, writeResults } from './lib/report.js';
import { startRedisServer } from '../test/helpers/redis-server.js';

import { RedisConnection } from '#built/main/redis/connection.js';
import { inflateDelta, inflateDeltaZlib } from '#built/codec/inflate-delta.js';
import { RedisFrameBus } from '#built/main/frames/adapters/redis/frame-bus.js';
import type { Frame } from '#built/main/frames/frame-bus.js';
import { recordedFrames } from '#built/tools/recorded-frames.js';

const ROUNDS = Number(process.env.ROUNDS ?? 4); // round 0 warms the JIT and is not counted
const log = pino({ level: 'silent' });
const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// The recorded match's frames, as a shard makes them.
const frames = recordedFrames();
const N = frames.length;
const expected = frames.map((f) => Buffer.from(f.frameText));
/** Whether B rebuilt frame `f` right: its bytes where it keeps them (a frame with its text on demand), else its text. */
const rebuiltRight = (f: Frame) => {
  const bytes = (f as { bytes?: Buffer | null }).bytes;
  return bytes ? bytes.equals(expected[f.frameNo - 1]) : f.frameText === frames[f.frameNo - 1].frameText;
};
/** Frame `n` of the recording and its delta, as the owner publishes them. */
const packet = (code: string, n: number): [Frame, string | null] => [{ groupCode: code, frameNo: n, epoch: 1, frameText: frames[n - 1].frameText }, frames[n - 1].delta];

const redis = await startRedisServer();
const open = (nodeId: string) => RedisConnection.open({ url: redis.url, prefix: 'bench:', nodeId, timeoutMs: 2000, probeIntervalMs: 5000, log });
const connA = await open('A');
const connB = await open('B');
const A = new RedisFrameBus(connA, { log });
const B = new RedisFrameBus(connB, { log });

// B's side of the work: its handler of frames-channel messages, timed.
let receiveMicros = 0;
const captured: Buffer[] = [];
const receive = B.receive.bind(B);
B.receive = (code, message) => {
  captured.push(message);
  const t0 = cpu();
  receive(code, message);
  receiveMicros += cpu() - t0;
};

interface Round { publishUs: number; receiveUs: number; e2eUs: number; burstPublishUs: number; burstReceiveUs: number; bytesPerFrame: number; deltaBytes: number[] }
const rounds: Round[] = [];
let lastByteCount = 0;
let paced: Buffer[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Paced: each frame through Redis before the next one.
  const code = `P${round}`;
  A.open(code, 1);
  A.publish(...packet(code, 1));
  let delivered = 0;
  let last: Frame | null = null;
  let wake: (() => void) | null = null;
  let mismatches = 0;
  B.subscribe(code, (f) => {
    delivered = f.frameNo;
    last = f;
    wake?.();
  });
  const until = (n: number) => new Promise<void>((resolve) => {
    if (delivered >= n) return resolve();
    const timer = setTimeout(() => { throw new Error(`frame ${n} not delivered (at ${delivered})`); }, 10_000);
    wake = () => { if (delivered >= n) { clearTimeout(timer); wake = null; resolve(); } };
  });
  await until(1);
  receiveMicros = 0;
  captured.length = 0;
  let publishMicros = 0;
  const deltaBytes: number[] = [];
  const bytes0 = A.stats.bytesPublished;
  const e0 = cpu();
  for (let n = 2; n <= N; n++) {
    const p = packet(code, n);
    const before = A.stats.bytesPublished;
    const t0 = cpu();
    A.publish(...p);
    publishMicros += cpu() - t0;
    deltaBytes.push(A.stats.bytesPublished - before);
    await until(n);
    if (!rebuiltRight(last!)) mismatches++;
  }
  const e2eMicros = cpu() - e0;
  paced = captured.slice();
  const bytesPerFrame = (A.stats.bytesPublished - bytes0) / (N - 1);
  if (mismatches > 0) throw new Error(`${mismatches} frames rebuilt wrong on B`);

  // Burst: every frame published in one go (a new match), then B catches up.
  const burst = `B${round}`;
  A.open(burst, 1);
  A.publish(...packet(burst, 1));
  let burstDelivered = 0;
  let burstWake: (() => void) | null = null;
  B.subscribe(burst, (f) => { burstDelivered = f.frameNo; if (burstDelivered === N) burstWake?.(); });
  await new Promise<void>((resolve) => { const t = setInterval(() => { if (burstDelivered >= 1) { clearInterval(t); resolve(); } }, 1); });
  const b0 = cpu();
  for (let n = 2; n <= N; n++) A.publish(...packet(burst, n));
  const b1 = cpu();
  await new Promise<void>((resolve) => { if (burstDelivered === N) resolve(); else burstWake = resolve; });
  const b2 = cpu();
  A.end(code);
  A.end(burst);
  if (round === 0) { lastByteCount = A.stats.bytesPublished; continue; }
  rounds.push({
    publishUs: publishMicros / (N - 1), receiveUs: receiveMicros / (N - 1), e2eUs: e2eMicros / (N - 1),
    burstPublishUs: (b1 - b0) / (N - 1), burstReceiveUs: (b2 - b1) / (N - 1), bytesPerFrame, deltaBytes,
  });
}
void lastByteCount;

// Rebuilding alone: best of several passes over every delta of the recording.
const bases = expected;
const deltas = frames.map((f) => (f.delta === null ? null : Buffer.from(f.delta, 'latin1')));
const pass = (inflate: (base: Buffer, delta: Buffer) => Buffer) => {
  const t0 = cpu();
  for (let k = 1; k < N; k++) inflate(bases[k - 1], deltas[k]!);
  return (cpu() - t0) / (N - 1);
};
const js: number[] = [];
const zl: number[] = [];
for (let r = 0; r < 8; r++) { js.push(pass(inflateDelta)); zl.push(pass(inflateDeltaZlib)); }
const toStringUs = (() => { const xs: number[] = []; for (let r = 0; r < 8; r++) { const t0 = cpu(); for (let k = 1; k < N; k++) bases[k].toString('latin1'); xs.push((cpu() - t0) / (N - 1)); } return Math.min(...xs); })();

// B's handler alone, hot: the last paced round's messages (frames 2..N) replayed after a keyframe of frame 1.
const iso: number[] = [];
{
  const C = new RedisFrameBus(connB, { log });
  C.subscribe('ISO', () => undefined);
  const k1 = Buffer.alloc(11 + bases[0].length);
  k1[0] = 0x4b; k1.writeUIntBE(1, 1, 6); k1.writeUInt32BE(1, 7); bases[0].copy(k1, 11);
  for (let r = 0; r < 10; r++) {
    C.end('ISO'); // forget the base: the keyframe is taken again
    C.receive('ISO', k1);
    const t0 = cpu();
    for (const m of paced) C.receive('ISO', m);
    iso.push((cpu() - t0) / paced.length);
  }
  if (C.stats.framesReceived !== 10 * (paced.length + 1)) throw new Error(`isolated receive: ${C.stats.framesReceived} frames`);
  C.close();
}

const sortedDelta = rounds.flatMap((r) => r.deltaBytes).sort((a, b) => a - b);
const wireAvg = bases.reduce((s, b) => s + b.length, 0) / N;
const result = {
  bench: 'cluster-frames',
  ...machine(),
  frames: N,
  rounds: rounds.length,
  frameBytesAvg: Math.round(wireAvg),
  redisBytesPerFrameAvg: Math.round(median(rounds.map((r) => r.bytesPerFrame))),
  redisBytesPerFrameP99: percentile(sortedDelta, 99),
  redisBytesPerFrameMax: sortedDelta[sortedDelta.length - 1],
  publishUsPerFrame: median(rounds.map((r) => r.publishUs)),
  receiveUsPerFrame: median(rounds.map((r) => r.receiveUs)),
  e2eProcessUsPerFrame: median(rounds.map((r) => r.e2eUs)),
  burstPublishUsPerFrame: median(rounds.map((r) => r.burstPublishUs)),
  burstReceiveUsPerFrame: median(rounds.map((r) => r.burstReceiveUs)),
  receiveHotUsBest: Math.min(...iso),
  receiveHotUsMedian: median(iso),
  inflateJsUsBest: Math.min(...js),
  inflateJsUsMedian: median(js),
  inflateZlibUsBest: Math.min(...zl),
  inflateZlibUsMedian: median(zl),
  frameToStringUs: toStringUs,
  statsA: A.stats,
  statsB: B.stats,
};
jsonLine(result);
console.log(`\n${N} frames of the recorded match (~${result.frameBytesAvg} B each), A → Redis → B, ${rounds.length} counted rounds (medians)\n`);
console.log(table([
  { what: 'publish (A.publish, per frame)', 'µs': result.publishUsPerFrame },
  { what: 'receive (B handler: decode + rebuild + packet)', 'µs': result.receiveUsPerFrame },
  { what: 'receive, hot loop over the same messages (best / median)', 'µs': `${result.receiveHotUsBest.toFixed(1)} / ${result.receiveHotUsMedian.toFixed(1)}` },
  { what: 'both nodes + Redis client I/O, paced', 'µs': result.e2eProcessUsPerFrame },
  { what: 'burst: publish', 'µs': result.burstPublishUsPerFrame },
  { what: 'burst: B catching up (ioredis parsing incl.)', 'µs': result.burstReceiveUsPerFrame },
  { what: 'inflate: this adapter (best / median)', 'µs': `${result.inflateJsUsBest.toFixed(1)} / ${result.inflateJsUsMedian.toFixed(1)}` },
  { what: 'inflate: zlib.inflateRawSync + dictionary (best / median)', 'µs': `${result.inflateZlibUsBest.toFixed(1)} / ${result.inflateZlibUsMedian.toFixed(1)}` },
  { what: 'frame bytes → string (latin1)', 'µs': result.frameToStringUs },
], ['what', 'µs']));
console.log(`\nbytes through Redis per frame: avg ${result.redisBytesPerFrameAvg}, p99 ${result.redisBytesPerFrameP99}, max ${result.redisBytesPerFrameMax} (a frame alone: ${result.frameBytesAvg})`);
console.log(`results: ${writeResults('cluster-frames', result)}`);

A.close();
B.close();
connA.close();
connB.close();
await redis.stop();
