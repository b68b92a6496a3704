// Sharding must not change results: the same replays through 1 and 3 shard threads give
// byte-identical final frames with the recorded clock (also with the shard threads' young
// generation capped: SHARD_YOUNG_GENERATION_MB, with frames on the cycle only: FRAME_EDGE, and after the threads' warm-up:
// SHARD_WARMUP), and identical frames without the time fields
// with the live clock. The one-shard run with the recorded clock, the reference of the others, is played once for the file.
import { afterEach, describe, expect, it } from 'vitest';
import { shardIndexOf } from '../../../src/main/shards/hash.js';
import { closeAll, overlay } from '../../helpers/clients.js';
import { playReplay, recordedMatch } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();

const CODES = ['SHRDA1', 'SHRDB2', 'SHRDC3', 'SHRDD4'];
const TIME_FIELDS = new Set(['agentSelectStartTime', 'roundTimeoutTime', 'spikeDetonationTime', 'serverTime']);

afterEach(() => closeAll());

/** Replays the match under every code at once into a service of its own and returns each code's final frame text. */
async function finalFrames(shards: number, trustTimestamps: boolean, serializer = 'wire', env: Record<string, string> = {}): Promise<Map<string, string>> {
  const svc: TestService = await startTestService({ AUTH_KEY: 'k', SHARD_WORKERS: String(shards), TRUST_REPLAY_TIMESTAMPS: String(trustTimestamps), FRAME_SERIALIZER: serializer, ...env });
  const shardsUsed = new Set(CODES.map((c) => shardIndexOf(c, shards))); // FNV-1a of the group code, modulo SHARD_WORKERS
  if (shards > 1) expect(shardsUsed.size).toBeGreaterThan(1);
  const overlays = await Promise.all(CODES.map((code) => overlay(svc.broadcast, code)));
  const results = await Promise.all(CODES.map((code) => playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: code })));
  const out = new Map<string, string>();
  await Promise.all(overlays.map(async (fe, i) => {
    await fe.waitFor((f) => f.roundPhase === 'game_end', 30_000);
    out.set(CODES[i], fe.raw[fe.raw.length - 1]);
  }));
  for (const r of results) r.socket.close();
  await svc.close();
  return out;
}

/** The recorded clock through one shard thread, the one-pass serializer and the default frame edge: what the other set-ups are compared with (played once for the file). */
let baseline: Promise<Map<string, string>> | undefined;
const oneShard = () => (baseline ??= finalFrames(1, true));

function withoutTimes(json: string): unknown {
  return JSON.parse(json, (key, value: unknown) => (TIME_FIELDS.has(key) ? undefined : value));
}

describe('sharding', () => {
  it('recorded clock: 1 and 3 shards give byte-identical final frames (the 3 with a capped young generation)', async () => {
    const one = await oneShard();
    const three = await finalFrames(3, true, 'wire', { SHARD_YOUNG_GENERATION_MB: '6' });
    for (const code of CODES) {
      expect(three.get(code)).toBe(one.get(code));
      expect(JSON.parse(one.get(code)!)).toMatchObject({ groupCode: code, roundPhase: 'game_end' });
    }
  }, 120_000);

  it('recorded clock: shard threads that warmed up first (SHARD_WARMUP, the service\'s default) give byte-identical final frames', async () => {
    const cold = await oneShard();
    const warm = await finalFrames(3, true, 'wire', { SHARD_WARMUP: 'true' });
    for (const code of CODES) expect(warm.get(code)).toBe(cold.get(code));
  }, 120_000);

  it('recorded clock: the shard on the main thread (SHARD_WORKERS=0) gives byte-identical final frames', async () => {
    const thread = await oneShard();
    const inline = await finalFrames(0, true);
    for (const code of CODES) expect(inline.get(code)).toBe(thread.get(code));
  }, 120_000);

  it('recorded clock: frames on the cycle only (FRAME_EDGE=cycle) or after busy batches only (auto) give byte-identical final frames', async () => {
    const leading = await oneShard();
    const cycle = await finalFrames(1, true, 'wire', { FRAME_EDGE: 'cycle' });
    for (const code of CODES) expect(cycle.get(code)).toBe(leading.get(code));
    // auto: a quiet service's messages wait for the interval's end on the main thread (main/shards/batches.ts).
    const auto = await finalFrames(1, true, 'wire', { FRAME_EDGE: 'auto' });
    for (const code of CODES) expect(auto.get(code)).toBe(leading.get(code));
  }, 180_000);

  it('the fast-json-stringify serializer (FRAME_SERIALIZER=json, through 3 shards) gives the same frames as the one-pass wire serializer', async () => {
    const wire = await oneShard();
    const json = await finalFrames(3, true, 'json');
    for (const code of CODES) expect(JSON.parse(json.get(code)!)).toEqual(JSON.parse(wire.get(code)!));
  }, 120_000);

  it('live clock: identical after removing the time fields', async () => {
    const one = await finalFrames(1, false);
    const three = await finalFrames(3, false);
    for (const code of CODES) expect(withoutTimes(three.get(code)!)).toEqual(withoutTimes(one.get(code)!));
  }, 120_000);
});
