// Bad input on the ingestion listener (issue: hardening). While the recorded match is replayed,
// its own observer socket, a second socket authenticated with the group secret, and strangers
// send everything a broken or hostile client could: not JSON, wrong shapes and types, missing
// fields, huge strings and arrays, deep nesting, __proto__/constructor keys, non-finite, negative
// and huge numbers, unknown types and events, binary frames, no or several arguments, data before
// logon, logon twice, oversize messages. Each is ignored or refused, counted, logged once per
// socket and kind, and the match ends in exactly the state of a clean run (recorded clock).
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, connect, connected, nextEvent, connectObserver, overlay, logon, observer as observerClient, refusedLogon, serverDisconnect } from '../../helpers/clients.js';
import { playReplay, recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { yieldToIo } from '../../helpers/waits.js';

const replay = recordedMatch();

const KEY = 'hostile-key';
const MAX_MESSAGE = 100_000;

let svc: TestService;
const sockets: Socket[] = [];
beforeAll(async () => {
  svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', MAX_MESSAGE_BYTES: String(MAX_MESSAGE) });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  closeAll();
  await svc?.close();
});

const nest = (depth: number): unknown => { let v: unknown = 1; for (let i = 0; i < depth; i++) v = { a: v }; return v; };
const nestText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const row = { playerId: 'p', agentInternal: 'Hunter', isAlive: true, initialArmor: 0, scoreboardWeaponInternal: 'x', currUltPoints: 0, maxUltPoints: 7, hasSpike: false, money: 800, kills: 0, deaths: 0, assists: 0, startTeam: '0' };

/** Invalid payloads: every one must be refused without any change. */
function badPayloads(code: string): unknown[] {
  const env = (type: string, data: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ obsName: 'x', groupCode: code, type, data, ...extra });
  return [
    'not json {', '', 'null', '42', '"a string"', '[]', 'true', '{"groupCode":',
    JSON.stringify({ groupCode: code }), JSON.stringify({ groupCode: code, type: 5, data: 1 }), JSON.stringify({ type: 'map', data: 'Ascent' }),
    env('scoreboard', 'x'), env('scoreboard', { ...row, kills: '7' }), env('scoreboard', { ...row, money: undefined }),
    env('roster', { name: 'x' }), env('round_info', { roundNumber: 'one', roundPhase: 'combat' }), env('round_info', { roundNumber: 1e6, roundPhase: 'combat' }),
    env('map', 'A'.repeat(5000)), env('map', 'A'.repeat(70_000)), env('killfeed', { attacker: 'a', victim: 'b', weaponKillfeedInternal: 'w', assists: Array(50).fill('x') }),
    env('score', { team_0: 1, team_1: Array(20_000).fill(1) }),
    env('toast', nest(40)), nestText(200_000).slice(0, 90_000), env('toast', { title: 't', message: 'm', duration: -5 }),
    env('scoreboard', { ...row, kills: -3 }), env('scoreboard', { ...row, money: 1e300 }), env('score', { team_0: -1, team_1: 0 }),
    env('scoreboard', { ...row, kills: 1 }).replace('"kills":1', '"kills":1e400'), env('aux_health', 1e400),
    env('roster', { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }),
    '{"obsName":"x","groupCode":"' + code + '","type":"scoreboard","data":{"__proto__":{"polluted":true}}}',
    env('map', 'Ascent').replace(code, 'OTHER1'), // another group's code
    { groupCode: code, type: 'roster', data: nest(100) }, // an object payload, deeply nested
    { groupCode: code, type: 'score', data: { team_0: 'x' } },
  ];
}

describe('hostile input on the ingestion listener', () => {
  it('changes nothing: the attacked match ends exactly like a clean run, and every input is counted', async () => {
    // The clean run.
    const ref = await overlay(svc.broadcast, 'HREF01');
    const clean = await playReplay(replay, { url: svc.ingest, key: KEY, pace: 'instant', groupCode: 'HREF01' });
    sockets.push(clean.socket);
    const expected = await ref.waitFor((f) => f.roundPhase === 'game_end', 20_000);

    const code = 'HOST01';
    const fe = await overlay(svc.broadcast, code);
    const observer = connectObserver(svc.ingest);
    sockets.push(observer);
    await connected(observer);
    const acks: string[] = [];
    observer.on('obs_logon_ack', (a: string) => acks.push(a));
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: code }));
    expect(ack.value).toBe(true);
    // A second socket with the group secret (the worst case: the secret leaked), and a stranger.
    // No reconnection: its oversize message below must leave it closed.
    const { socket: insider, ack: insiderAck } = await observerClient(svc.ingest, {
      obsName: 'i', key: KEY, groupCode: code, groupSecret: ack.reason, leftTeam: replay.header.leftTeam, rightTeam: replay.header.rightTeam,
    }, { reconnection: false });
    sockets.push(insider);
    expect(insiderAck).toMatchObject({ value: true, reason: 'reconnected' });
    const stranger = connect(svc.ingest);
    await connected(stranger);

    const bad = badPayloads(code);
    let attacks = 0;
    const records = replay.records;
    for (let i = 0; i < records.length; i++) {
      const rec = { ...records[i], groupCode: code };
      observer.emit('obs_data', JSON.stringify(rec));
      if (i % 25 !== 0 || i === records.length - 1) continue;
      const ts = records[i].timestamp;
      const payload = bad[attacks++ % bad.length];
      // Ordered after the record on the observer's own socket: unknown types, repeated logon, wrong event arity.
      observer.emit('obs_data', JSON.stringify({ obsName: 'x', groupCode: code, type: 'no_such_type', data: { x: 1 }, timestamp: ts }));
      observer.emit('obs_data', JSON.stringify({ obsName: 'x', groupCode: code, type: '__proto__', data: { polluted: true }, timestamp: ts }));
      observer.emit('obs_data', payload);
      for (const s of [insider, stranger]) {
        s.emit('obs_data', payload);
        s.emit('obs_data');
        s.emit('obs_data', payload, payload);
        s.emit('obs_data', Buffer.from([0, 1, 2, 3]));
        s.emit('aux_data', payload);
        s.emit('not_an_event', payload);
        s.emit('match_data', '{}');
      }
      insider.emit('obs_logon', JSON.stringify({ type: 'authenticate' }));
      if (i % 200 === 0) await yieldToIo();
    }
    // An oversize message closes the sender's connection, nobody else's.
    const closed = serverDisconnect(insider);
    insider.emit('obs_data', 'x'.repeat(MAX_MESSAGE + 10));
    expect(await closed).toMatch(/transport (close|error)/);

    const final = await fe.waitFor((f) => f.roundPhase === 'game_end', 20_000);
    expect({ ...final, groupCode: 'HREF01' }).toEqual(expected);
    expect(acks).toHaveLength(1);
    expect(attacks).toBeGreaterThan(bad.length); // every payload sent at least once
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Counted, by reason (main thread and shard), and logged once per socket and kind.
    // The dashboard's totals (GET /admin/matches) keep the main thread's and the shards' drops apart.
    const dropped = async () => (await svc.admin.snapshot()).totals.dropped;
    // The shards report their counts with their cycles' stats, so on a loaded machine one reason can
    // come a cycle after another: waited for together (seen once, invalid_data alone, after a game_end).
    const shardReasons = ['invalid_json', 'invalid_envelope', 'invalid_data', 'too_deep', 'group_mismatch', 'round_out_of_range'];
    await expect.poll(async () => { const d = (await dropped()).shards; return shardReasons.filter((r) => !(d[r] > 0)); }, { timeout: 30_000 }).toEqual([]);
    const { ingest: main, shards: shard } = await dropped();
    for (const reason of ['unauthenticated', 'bad_arguments', 'invalid_payload', 'unknown_event', 'wrong_role', 'repeated_logon', 'too_large']) expect(main[reason], reason).toBeGreaterThan(0);
    for (const reason of shardReasons) expect(shard[reason], reason).toBeGreaterThan(0);
    const ignored = svc.logs.map((l) => JSON.parse(l) as { msg?: string; socket?: string; reason?: string }).filter((j) => j.msg === 'ingestion message ignored');
    const keys = ignored.map((j) => `${j.socket}/${j.reason}`);
    expect(new Set(keys).size).toBe(keys.length);
    const dropLogs = svc.logs.map((l) => JSON.parse(l) as { msg?: string; groupCode?: string; reason?: string; type?: string }).filter((j) => j.msg === 'message dropped' && j.groupCode === code);
    const dropKeys = dropLogs.map((j) => `${j.reason}/${j.type}`);
    expect(new Set(dropKeys).size).toBe(dropKeys.length);
    expect(dropLogs.length).toBeLessThan(40);

    // The metrics say the same, and the service answers.
    const metrics = await svc.metrics();
    expect(metrics.value('ods_messages_dropped_total', { reason: 'unauthenticated' })).toBeGreaterThanOrEqual(1);
    expect(metrics.value('ods_messages_dropped_total', { reason: 'invalid_data' })).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${svc.rest}/status`)).status).toBe(200);
  }, 60_000);

  it('refuses bad logons with a reason and closes the socket; the match is not touched', async () => {
    const live = await playReplay(replay, { url: svc.ingest, key: KEY, pace: 'instant', groupCode: 'HLIVE1', to: 10 });
    sockets.push(live.socket);
    const cases: [string, unknown, RegExp][] = [
      ['obs_logon', 'not json', /Invalid packet/],
      ['obs_logon', JSON.stringify({ type: 'authenticate' }), /Invalid packet/],
      ['obs_logon', JSON.stringify({ type: 'authenticate', groupCode: 'X'.repeat(65), leftTeam: {}, rightTeam: {} }), /Invalid packet/],
      ['obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', key: KEY, groupCode: 'BIG001', leftTeam: { name: 'a', tricode: 'a', url: '' }, rightTeam: { name: 'b', tricode: 'b', url: '' }, toolsData: { sponsorInfo: { sponsors: Array(2500).fill('https://example.org/logo.png') } } }), /Invalid packet/],
      ['obs_logon', nest(60), /Invalid packet/],
      ['obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', key: 'wrong', groupCode: 'HREF01', leftTeam: { name: 'a', tricode: 'a', url: '' }, rightTeam: { name: 'b', tricode: 'b', url: '' } }), /Invalid Key/],
      ['obs_logon', JSON.stringify({ type: 'authenticate', clientVersion: '0.3.3', key: KEY, groupCode: 'HLIVE1', groupSecret: 'guess', leftTeam: { name: 'a', tricode: 'a', url: '' }, rightTeam: { name: 'b', tricode: 'b', url: '' } }), /exists and is still live/],
      ['aux_logon', 'garbage', /Invalid packet/],
      ['aux_logon', JSON.stringify({ type: 'aux_authenticate', clientVersion: '0.3.3', matchId: 'nope', playerId: 'p' }), /not found/],
    ];
    const liveMatches = () => svc.metric('ods_live_matches');
    const before = await liveMatches();
    for (const [event, payload, reason] of cases) {
      const { acks, order } = await refusedLogon(svc.ingest, event as 'obs_logon' | 'aux_logon', payload);
      expect(order, String(payload).slice(0, 60)).toEqual(['ack', 'disconnect']);
      expect(JSON.parse(acks[0]), String(payload).slice(0, 60)).toMatchObject({ value: false, reason: expect.stringMatching(reason) });
    }
    expect(await liveMatches()).toBe(before);
  }, 30_000);

  it('an overlay logon with null, a number or a huge code is ignored; the listener stays up', async () => {
    for (const payload of ['null', '5', JSON.stringify({ groupCode: 'Y'.repeat(100) }), '[]', '{"groupCode":null}']) {
      const s = connect(svc.broadcast);
      await connected(s);
      s.emit('logon', payload);
      // The marker: a valid logon on the same socket is handled after it and answered, so the bad
      // one closed nothing (and did not count as the socket's one logon).
      const ok = nextEvent(s, 'logon_success');
      s.emit('logon', JSON.stringify({ groupCode: 'HREF02' }));
      await ok;
      expect(s.connected).toBe(true);
    }
    const fe = await overlay(svc.broadcast, 'HREF01');
    expect(fe.socket.connected).toBe(true);
  });
});
