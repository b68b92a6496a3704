// The InputLog contract (matches/input-log.ts) against the Redis adapter (matches/adapters/redis/input-log.ts)
// on a real redis-server, two nodes being two connections on one key prefix; and what only Redis
// has: the stream as stored (ids `<epoch>-<n>`, the fence entry, its expiry), the refused appends'
// one log line per match, and Redis going away (nothing thrown, `since` rejects) and coming back.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../../src/main/redis/connection.js';
import { RedisInputLog } from '../../../src/main/matches/adapters/redis/input-log.js';
import type { InputLog } from '../../../src/main/matches/input-log.js';
import { describeInputLogContract } from './input-log.contract.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { pollUntil } from '../../helpers/waits.js';

const silent = pino({ level: 'silent' });
let server: RedisServer;
const open: RedisConnection[] = [];
const run = randomUUID().slice(0, 8);
let prefixes = 0;
const freshPrefix = () => `t${run}-${++prefixes}:`;

beforeAll(async () => { server = await startRedisServer(); });
afterAll(async () => { await server?.stop(); });
afterEach(() => { for (const c of open.splice(0)) c.close(); });

async function connect(prefix: string, nodeId: string): Promise<RedisConnection> {
  const conn = await RedisConnection.open({ url: server.url, prefix, nodeId, timeoutMs: 2000, probeIntervalMs: 1000, log: silent });
  open.push(conn);
  return conn;
}

const prefixOf = new WeakMap<InputLog, string>();
describeInputLogContract('redis', {
  make: async () => {
    const prefix = freshPrefix();
    const log = new RedisInputLog(await connect(prefix, 'node-a'), { log: silent });
    prefixOf.set(log, prefix);
    return log;
  },
  reopen: async (first) => new RedisInputLog(await connect(prefixOf.get(first)!, 'node-b'), { log: silent }),
  concurrent: true,
});

/** A logger whose lines (parsed) land in `lines`. */
function capturing() {
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => { text.push(s); lines.push(JSON.parse(s) as Record<string, unknown>); } });
  return { log, lines, text };
}

describe('RedisInputLog', () => {
  it('stores a stream per match: ids <epoch>-<n>, a fence <epoch>-0 from since, fields t r (m p), an expiry every write refreshes', async () => {
    const conn = await connect(freshPrefix(), 'node-a');
    const log = new RedisInputLog(conn, { log: silent, ttlMs: 120_000 });
    const key = conn.keys.inputLog('K7QX2M');
    expect(key).toMatch(/inlog:K7QX2M$/);
    log.append('K7QX2M', 7, { n: 1, now: 1000, kind: 'obs', raw: '{"a":1}' });
    log.append('K7QX2M', 7, { n: 2, now: 1001.5, kind: 'aux', matchId: 'm', playerId: 'p', raw: '{"b":2}' });
    log.flush();
    expect(await log.since('K7QX2M', 8, 7, 0)).toHaveLength(2);
    expect(await conn.cmd.xrange(key, '-', '+')).toEqual([
      ['7-1', ['t', '1000', 'r', '{"a":1}']],
      ['7-2', ['t', '1001.5', 'r', '{"b":2}', 'm', 'm', 'p', 'p']],
      ['8-0', ['f', '1']],
    ]);
    const ttl = await conn.cmd.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120_000);
    // Trimmed empty, the stream keeps its last id (the fence) and its expiry.
    log.covered('K7QX2M', 8, 2);
    await expect.poll(() => conn.cmd.xrange(key, '-', '+')).toEqual([]);
    expect(await server.command('XINFO', 'STREAM', key)).toContain('8-0');
    expect(await conn.cmd.pttl(key)).toBeGreaterThan(0);
  });

  it('the log of a match nobody writes to any more expires (ttlMs), a deposed owner\'s appends after its successor dropped it too', async () => {
    const conn = await connect(freshPrefix(), 'node-a');
    const owner = new RedisInputLog(conn, { log: silent, ttlMs: 2000 });
    const deposed = new RedisInputLog(conn, { log: silent, ttlMs: 2000 });
    const key = conn.keys.inputLog('EXP1');
    expect(await owner.since('EXP1', 4, 0, 0)).toEqual([]);
    expect(await conn.cmd.exists(key)).toBe(1); // the fence
    owner.drop('EXP1', 4);
    await pollUntil(async () => (await conn.cmd.exists(key)) === 0, 'the log dropped');
    deposed.append('EXP1', 3, { n: 1, now: 1, kind: 'obs', raw: '1' }); // starts the log again
    deposed.flush();
    await pollUntil(async () => (await conn.cmd.exists(key)) === 1, 'the log written');
    expect(await conn.cmd.pttl(key)).toBeGreaterThan(0);
    await pollUntil(async () => (await conn.cmd.exists(key)) === 0, 'the log expired', 15_000); // Redis's clock: 2 s
  });

  it('a refused append is logged once per match and epoch, never with its payload; the owner\'s appends go on', async () => {
    const prefix = freshPrefix();
    const captured = capturing();
    const deposed = new RedisInputLog(await connect(prefix, 'node-a'), { log: captured.log });
    const owner = new RedisInputLog(await connect(prefix, 'node-b'), { log: silent });
    expect(await owner.since('FEN1', 6, 0, 0)).toEqual([]);
    for (let n = 1; n <= 3; n++) deposed.append('FEN1', 5, { n, now: n, kind: 'obs', raw: `"payload-${n}-zq"` });
    deposed.flush();
    deposed.append('FEN1', 5, { n: 4, now: 4, kind: 'obs', raw: '"payload-4-zq"' });
    deposed.flush();
    await pollUntil(() => captured.lines.length >= 1, 'the refusal logged');
    // A marker after them on the same connection: every refusal has been handled when it landed.
    deposed.append('MARK1', 5, { n: 1, now: 1, kind: 'obs', raw: '1' });
    deposed.flush();
    await pollUntil(async () => (await deposed.since('MARK1', 5, 5, 0)).length === 1, 'the marker');
    expect(captured.lines).toHaveLength(1);
    expect(captured.lines[0]).toMatchObject({ level: 40, module: 'input-log', groupCode: 'FEN1', epoch: 5 });
    expect(captured.text.join('')).not.toContain('payload-');
    expect(await owner.since('FEN1', 6, 0, 0)).toEqual([]);
  });

  it('a flush of thousands (several script calls) of two matches, one fenced: the live one\'s all stored in order, the fenced one refused, logged once', async () => {
    const prefix = freshPrefix();
    const captured = capturing();
    const conn = await connect(prefix, 'node-a');
    const deposed = new RedisInputLog(conn, { log: captured.log });
    const owner = new RedisInputLog(await connect(prefix, 'node-b'), { log: silent });
    expect(await owner.since('BIGF', 3, 0, 0)).toEqual([]);
    const big = 'x'.repeat(300_000); // above a call's 256 Ki characters: each ends a chunk early
    const expected = [];
    for (let n = 1; n <= 2500; n++) {
      const input = n % 7 === 0
        ? { n, now: n, kind: 'aux' as const, matchId: `m${n}`, playerId: `p${n}`, raw: `"aux-${n}"` }
        : { n, now: n, kind: 'obs' as const, raw: n >= 600 && n < 606 ? big : `"obs-${n}"` };
      expected.push(input);
      deposed.append('BIGL', 2, input);
      deposed.append('BIGF', 2, { n, now: n, kind: 'obs', raw: `"fenced-${n}"` });
    }
    deposed.flush();
    const got = await pollUntil(async () => { const g = await deposed.since('BIGL', 2, 2, 0); return g.length === 2500 && g; }, 'the live match\'s inputs', 30_000);
    expect(got).toEqual(expected);
    expect(await conn.cmd.pttl(conn.keys.inputLog('BIGL'))).toBeGreaterThan(0);
    await pollUntil(() => captured.lines.length >= 1, 'the refusal logged');
    expect(await owner.since('BIGF', 3, 0, 0)).toEqual([]);
    // A marker after them on the same connection: every chunk's answer has been handled when it landed.
    deposed.append('MARK2', 2, { n: 1, now: 1, kind: 'obs', raw: '1' });
    deposed.flush();
    await pollUntil(async () => (await deposed.since('MARK2', 2, 2, 0)).length === 1, 'the marker');
    expect(captured.lines).toHaveLength(1);
    expect(captured.lines[0]).toMatchObject({ level: 40, groupCode: 'BIGF', epoch: 2, n: 1 });
    expect(captured.text.join('')).not.toContain('fenced-');
  });

  it('Redis away: flush and the trims throw nothing (the failure is logged), since rejects; back, the log works again', async () => {
    const captured = capturing();
    const conn = await connect(freshPrefix(), 'node-a');
    const log = new RedisInputLog(conn, { log: captured.log });
    log.append('OUT1', 2, { n: 1, now: 1, kind: 'obs', raw: '"before"' });
    log.flush();
    await pollUntil(async () => (await log.since('OUT1', 2, 2, 0)).length === 1, 'the first input');
    await server.stop();
    await pollUntil(() => !conn.up, 'the connection down');
    log.append('OUT1', 2, { n: 2, now: 2, kind: 'obs', raw: '"during-zq"' });
    log.flush();
    log.covered('OUT1', 2, 1);
    log.drop('OUT2', 2);
    await expect(log.since('OUT1', 2, 2, 0)).rejects.toThrow();
    await pollUntil(() => captured.lines.some((l) => l.msg === 'inputs not written to the input log (a takeover before the next snapshot would miss them)' && l.inputs === 1), 'the failure logged');
    await pollUntil(() => captured.lines.some((l) => l.msg === 'input log not trimmed') && captured.lines.some((l) => l.msg === 'input log not deleted (it expires)'), 'the trim and the drop logged');
    expect(captured.text.join('')).not.toContain('during-zq');
    await server.start(); // a new, empty Redis
    await pollUntil(() => conn.up, 'the connection up again');
    log.append('OUT1', 2, { n: 3, now: 3, kind: 'obs', raw: '"after"' });
    log.flush();
    expect(await pollUntil(async () => { const got = await log.since('OUT1', 2, 2, 0); return got.length > 0 && got; }, 'the input after'))
      .toEqual([{ n: 3, now: 3, kind: 'obs', raw: '"after"' }]);
  });
});
