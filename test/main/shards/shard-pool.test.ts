// The shard pool (src/main/shards/pool.ts) with real shard threads (dist/workers/shard/thread.js):
// a group code always maps to the same shard (FNV-1a, stable across processes and restarts) and
// codes spread over the shards; commands travel in one message per shard per batch window (or at
// once past MAX_BATCH_COMMANDS), each ending with a mark the shard acknowledges; payloads that
// carry the packing separators are refused; a thread that dies is restarted and given back the
// batches since its last snapshot, then snapshots only, then nothing. The same crash recovery
// end to end through the service (FAULT_INJECTION): test/main/matches/shard-crash.test.ts.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { inflateDelta } from '../../../src/codec/inflate-delta.js';
import { loadConfig } from '../../../src/main/base/config.js';
import { createLogger } from '../../../src/main/base/log.js';
import { shardIndexOf } from '../../../src/main/shards/hash.js';
import { ShardPool, type RecoveryMode } from '../../../src/main/shards/pool.js';
import { MAX_BATCH_COMMANDS } from '../../../src/protocol/limits.js';
import type { ShardCmd, ShardOut } from '../../../src/protocol/shard-messages.js';
import { WIRE_PREFIX_LENGTH } from '../../../src/protocol/wire.js';

/** FNV-1a (32 bit), written out again: the mapping is a contract (STATE_DIR restores by it). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function codes(n: number): string[] {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % alphabet.length;
  return Array.from({ length: n }, () => Array.from({ length: 6 }, () => alphabet[next()]).join(''));
}

describe('shardIndexOf', () => {
  it('is FNV-1a of the group code modulo the shard count', () => {
    expect(shardIndexOf('', 2 ** 32)).toBe(0x811c9dc5);
    expect(shardIndexOf('a', 2 ** 32)).toBe(0xe40c292c); // published FNV-1a test vectors
    expect(shardIndexOf('foobar', 2 ** 32)).toBe(0xbf9cf968);
    for (const code of codes(200)) for (const n of [1, 2, 3, 4, 7]) expect(shardIndexOf(code, n)).toBe(fnv1a(code) % n);
  });

  it('is stable: the same code, the same shard, every time', () => {
    for (const code of codes(50)) {
      const first = shardIndexOf(code, 4);
      for (let i = 0; i < 5; i++) expect(shardIndexOf(code, 4)).toBe(first);
    }
  });

  it('spreads group codes evenly over the shards', () => {
    for (const n of [2, 3, 4]) {
      const counts = new Array<number>(n).fill(0);
      const all = codes(6000);
      for (const code of all) counts[shardIndexOf(code, n)]++;
      for (const c of counts) {
        expect(c / all.length).toBeGreaterThan(0.8 / n);
        expect(c / all.length).toBeLessThan(1.2 / n);
      }
    }
  });
});

// ---- the pool with real shard threads -------------------------------------------------------

const TEAM = (name: string, attackStart: boolean) => ({ name, tricode: name.slice(0, 3).toUpperCase(), url: '', attackStart });
const create = (groupCode: string): ShardCmd => ({
  t: 'create', groupCode, now: Date.now(),
  logon: { groupCode, leftTeam: TEAM('Alpha', true), rightTeam: TEAM('Bravo', false), organizationId: '', isSupporter: false, obsName: 'o', clientVersion: '0.3.3' },
});
const env = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'o', groupCode, type, data });

interface Harness {
  pool: ShardPool;
  outs: { shard: number; out: ShardOut }[];
  crashes: { shard: number; mode: RecoveryMode }[];
  logs: string[];
  /** The frames (parsed match_data) received for a group code, in order. */
  frames(groupCode: string): Record<string, unknown>[];
  /** The highest batch mark a shard acknowledged. */
  acked(shard: number): number;
}

let pools: ShardPool[] = [];
afterEach(async () => {
  for (const p of pools) await p.terminate();
  pools = [];
});

function harness(count: number, batchMs: number, extra: { faultInjection?: boolean; snapshotIntervalMs?: number } = {}): Harness {
  const logs: string[] = [];
  const log = createLogger(loadConfig({ LOG_LEVEL: 'info' }), new Writable({ write(chunk, _e, cb) { logs.push(...String(chunk).split('\n').filter(Boolean)); cb(); } }));
  const outs: Harness['outs'] = [];
  const crashes: Harness['crashes'] = [];
  const pool = new ShardPool({
    count, batchMs, log,
    settings: {
      intervalMs: 100, inactivityMs: 3_600_000, trustReplayTimestamps: false, sponsorLogoUrl: '', recordReplays: false, replayDir: '',
      serviceVersion: '0.0.0-test', compression: true, frameSerializer: 'wire', snapshotIntervalMs: extra.snapshotIntervalMs ?? 600_000,
      faultInjection: extra.faultInjection ?? false,
    },
    onOutput: (shard, out) => outs.push({ shard, out }),
    onCrash: (shard, mode) => { crashes.push({ shard, mode }); return []; },
  });
  pools.push(pool);
  return {
    pool, outs, crashes, logs,
    // A frame with a delta comes without its text (the shard keeps it): rebuilt from the previous one, as an overlay does.
    frames: (groupCode) => {
      let prev: Buffer | null = null;
      return outs.flatMap(({ out }) => out.codes.flatMap((c, i) => {
        if (c !== groupCode) return [];
        const frameText: string = out.frameTexts[i] ?? inflateDelta(prev!, Buffer.from(out.deltas[i]!, 'latin1')).toString();
        prev = Buffer.from(frameText);
        return [JSON.parse((JSON.parse(frameText.slice(WIRE_PREFIX_LENGTH)) as [string, string])[1]) as Record<string, unknown>];
      }));
    },
    acked: (shard) => Math.max(0, ...outs.filter((o) => o.shard === shard && o.out.ack !== undefined).map((o) => o.out.ack!)),
  };
}

describe('the shard pool', () => {
  it('routes a group code to shardIndexOf(code, count); the shard applies its payloads and sends frames', async () => {
    const h = harness(3, 2);
    for (const code of codes(30)) expect(h.pool.shardOf(code)).toBe(shardIndexOf(code, 3));
    const code = 'ROUTE1';
    const shard = h.pool.shardOf(code);
    h.pool.send(shard, create(code));
    expect(h.pool.obs(code, env(code, 'map', 'Ascent'), Date.now())).toBe(true);
    await expect.poll(() => h.frames(code).some((f) => f.map === 'Ascent')).toBe(true);
    expect(h.outs.filter((o) => o.out.codes.includes(code)).every((o) => o.shard === shard)).toBe(true);
  });

  it('refuses a payload or a group code that carries a packing separator (nothing is queued)', () => {
    const h = harness(1, 2);
    expect(h.pool.obs('SEP001', 'a\x1eb', Date.now())).toBe(false);
    expect(h.pool.obs('SEP001', 'a\x1fb', Date.now())).toBe(false);
    expect(h.pool.obs('SEP\x1e01', '{}', Date.now())).toBe(false);
    expect(h.pool.obs('SEP\x1f01', '{}', Date.now())).toBe(false);
  });

  it('sends the commands of one batch window as one message: one mark for all of them', async () => {
    const h = harness(1, 20);
    const code = 'BATCH1';
    h.pool.send(0, create(code));
    for (const map of ['Ascent', 'Duality', 'Triad', 'Canyon', 'Port']) h.pool.obs(code, env(code, 'map', map), Date.now());
    // Every payload applied (the last map shows), and the shard's stats (once a second, with its ack) came after it.
    await expect.poll(() => h.frames(code).some((f) => f.map === 'Icebox')).toBe(true);
    const outsSoFar = h.outs.length;
    await expect.poll(() => h.outs.slice(outsSoFar).some((o) => o.out.stats !== undefined)).toBe(true);
    expect(h.acked(0)).toBe(1);
    h.pool.obs(code, env(code, 'map', 'Pitt'), Date.now());
    await expect.poll(() => h.acked(0)).toBe(2); // the next window: the next mark
    await expect.poll(() => h.frames(code).some((f) => f.map === 'Pearl')).toBe(true);
  });

  it(`posts at once past ${MAX_BATCH_COMMANDS} commands, without waiting for the window`, async () => {
    const h = harness(1, 600_000); // a window that never ends within this test
    const code = 'BATCH2';
    h.pool.send(0, create(code));
    for (let i = 1; i < MAX_BATCH_COMMANDS; i++) h.pool.obs(code, env(code, 'map', i % 2 ? 'Ascent' : 'Port'), Date.now());
    await expect.poll(() => h.acked(0)).toBe(1);
    await expect.poll(() => h.frames(code).length).toBeGreaterThan(0);
  });

  it('restarts a thread that dies, gives it back the batches since its last snapshot; then snapshots only, then nothing (within the crash window)', async () => {
    const h = harness(1, 2, { faultInjection: true });
    const code = 'CRASH1';
    h.pool.send(0, create(code));
    h.pool.obs(code, env(code, 'map', 'Ascent'), Date.now());
    await expect.poll(() => h.frames(code).some((f) => f.map === 'Ascent')).toBe(true);
    await expect.poll(() => h.acked(0)).toBeGreaterThanOrEqual(1);

    h.pool.injectCrash(0);
    await expect.poll(() => h.crashes).toEqual([{ shard: 0, mode: 'full' }]);
    // No snapshot was taken (600 s interval): the new thread rebuilt the match from the retained
    // batches alone (the acknowledged ones muted), and applies what follows.
    const before = h.frames(code).length;
    h.pool.obs(code, env(code, 'map', 'Duality'), Date.now());
    await expect.poll(() => h.frames(code).slice(before).some((f) => f.map === 'Bind')).toBe(true);
    const after = h.frames(code).slice(before);
    // At most the state as it was before the crash again (the rebuilt match's pending frame), then the new change.
    expect(after.at(-1)!.map).toBe('Bind');
    expect(after.slice(0, -1).every((f) => f.map === 'Ascent')).toBe(true);
    expect(after[0]).toMatchObject({ groupCode: code, teams: [expect.objectContaining({ teamName: 'Alpha' }), expect.objectContaining({ teamName: 'Bravo' })] });

    h.pool.injectCrash(0);
    await expect.poll(() => h.crashes.map((c) => c.mode)).toEqual(['full', 'snapshots']);
    h.pool.injectCrash(0);
    await expect.poll(() => h.crashes.map((c) => c.mode)).toEqual(['full', 'snapshots', 'none']);
    const restarts = h.logs.map((l) => JSON.parse(l) as { msg?: string; mode?: string; crashesInWindow?: number }).filter((j) => j.msg === 'shard worker exited; restarting it');
    expect(restarts.map((j) => [j.mode, j.crashesInWindow])).toEqual([['full', 1], ['snapshots', 2], ['none', 3]]);
    // The thread itself runs again: it takes a new match.
    h.pool.send(0, create('CRASH2'));
    h.pool.obs('CRASH2', env('CRASH2', 'map', 'Canyon'), Date.now());
    await expect.poll(() => h.frames('CRASH2').some((f) => f.map === 'Fracture')).toBe(true);
  });
});
