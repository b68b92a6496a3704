// Outbound calls during a match (docs/interface.md 4.8, 5), observed by a real local HTTP server that
// plays the backend, the supporter check, the statistics backend and the player-camera service.
// The recorded match is replayed into the service: registration at match_start, updates at the
// shopping phases from round 2 on, completion at the end, statistics calls for supporter
// organisations only; a failing or hanging backend never stops the match.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { startBackend, type Answer, type FakeBackend, type RecordedRequest } from '../../helpers/backends.js';
import { closeAll, overlay, observer } from '../../helpers/clients.js';
import { recordedMatch, recordIndex, replayMatchId, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sleep } from '../../helpers/waits.js';

const replay = recordedMatch();
const MATCH_ID = replayMatchId(replay);
const MATCH_START_INDEX = recordIndex(replay, 'match_start');

const BACKEND_TOKEN = 'backend-token-5e7a1';
const STATS_TOKEN = 'stats-token-93bd2';
const CAM_SECRET = 'CAMSECRET-9f8e7d6c';

type Mode = 'ok' | '500' | 'hang';
const mode: { register: Mode; update: Mode; complete: Mode; stats: Mode } = { register: 'ok', update: 'ok', complete: 'ok', stats: 'ok' };
const answerFor = (m: Mode): Answer => (m === 'hang' ? { hang: true } : m === '500' ? { status: 500, json: { error: 'boom' } } : { status: 200, json: {} });

const arrivedAt = new Map<RecordedRequest, number>();
function handler(req: RecordedRequest): Answer {
  arrivedAt.set(req, Date.now());
  const p = req.path;
  let m: RegExpMatchArray | null;
  if ((m = p.match(/^\/system\/validateAccessKey\/(.+)$/))) {
    switch (decodeURIComponent(m[1])) {
      case 'KEY-SUP': return { status: 200, json: { id: 'org-sup', name: 'Supporter Org' } };
      case 'KEY-FREE': return { status: 200, json: { id: 'org-free', name: 'Free Org' } };
      case 'KEY-EXPIRED': return { status: 403, json: {} };
      case 'KEY-SLOW': return { hang: true };
      case 'KEY-BROKEN': return { status: 500, json: {} };
      default: return { status: 401, json: {} };
    }
  }
  if ((m = p.match(/^\/supporter\/(.+)$/))) return { status: 200, json: { isSupporter: m[1] === 'org-sup' } };
  if ((m = p.match(/^\/system\/match\/[^/]+\/(register|update|complete)$/))) return answerFor(mode[m[1] as 'register' | 'update' | 'complete']);
  if (p.startsWith('/stats/')) return answerFor(mode.stats);
  if (p === `/cams/api/getNameOverridesAndPlayercams/PCAM01/${CAM_SECRET}`) {
    return { status: 200, json: { nameOverrides: { 'p-cam1': 'Override One' }, enabledPlayers: ['p-cam1'] } };
  }
  return { status: 404, json: { error: 'not programmed' } };
}

let be: FakeBackend;
let svc: TestService;
const sockets: Socket[] = [];
const overlays: { raw: string[] }[] = [];
const groupSecrets: string[] = [];

beforeAll(async () => {
  be = await startBackend(handler);
  svc = await startTestService({
    USE_BACKEND: 'true',
    BACKEND_URL: be.url,
    BACKEND_TOKEN,
    SUPPORTER_CHECK_URL: `${be.url}/supporter`,
    STATS_BACKEND_URL: `${be.url}/stats`,
    STATS_BACKEND_TOKEN: STATS_TOKEN,
    PLAYERCAM_URL: `${be.url}/cams`,
    OUTBOUND_TIMEOUT_MS: '1000', // the calls that must succeed do on a loaded machine
  });
  // Node loads its fetch implementation on first use, which can take longer than the
  // timeout on a busy machine: load it (and open a connection) before the first timed call.
  await (await fetch(`${be.url}/warmup`)).text();
  be.reset();
});
afterAll(async () => {
  for (const s of sockets) s.close();
  closeAll();
  await svc?.close();
  await be?.close();
});
beforeEach(() => {
  Object.assign(mode, { register: 'ok', update: 'ok', complete: 'ok', stats: 'ok' });
});

const bodyOf = (r: RecordedRequest) => JSON.parse(r.body) as Record<string, unknown>;
const matchCalls = (code: string, kind?: string) => be.requests.filter((r) => {
  const k = r.path.match(/^\/system\/match\/[^/]+\/(register|update|complete)$/)?.[1];
  return k !== undefined && (kind === undefined || k === kind) && (bodyOf(r).match as { groupCode?: string } | undefined)?.groupCode === code;
});

type Frame = Record<string, unknown> & { teams: { roundsWon: number; players: { riotId: string }[] }[] };

/** Replays the whole match for a group code: logon, up to match_start, wait for the registration answer, the rest. */
type Fe = Awaited<ReturnType<typeof overlay>>;
const frameTimes = new Map<Fe, number[]>();
async function playMatch(key: string, code: string, waitRegistered: boolean, watch?: (fe: Fe) => void, pace: 'instant' | number = 'instant'): Promise<{ fe: Fe; final: Frame; atStart: Frame; secret: string }> {
  const fe = await overlay(svc.broadcast, code);
  watch?.(fe);
  overlays.push(fe);
  const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key, groupCode: code });
  sockets.push(obs);
  expect(ack.value).toBe(true);
  groupSecrets.push(ack.reason);
  await sendRecords(obs, replay, { pace: 'instant', groupCode: code, to: MATCH_START_INDEX + 1 });
  const atStart = (await fe.waitFor((f) => f.matchId === MATCH_ID)) as Frame;
  if (waitRegistered) await fe.waitFor((f) => f.isRegistered === true);
  else await expect.poll(() => svc.logs.some((l) => l.includes('"backend call failed"') && l.includes(code) && l.includes('"call":"register"'))).toBe(true); // its timeout is in
  await sendRecords(obs, replay, { pace, groupCode: code, from: MATCH_START_INDEX + 1 });
  const final = (await fe.waitFor((f) => f.roundPhase === 'game_end', 20_000)) as Frame;
  return { fe, final, atStart, secret: ack.reason };
}

function expectFinal(final: Frame): void {
  expect(final.isRunning).toBe(false);
  expect(final.roundNumber).toBe(19);
  expect(final.teams.map((t) => t.roundsWon)).toEqual([6, 13]);
}

describe('key validation through the backend', () => {
  async function ackFor(key: string): Promise<{ value: boolean; reason: string }> {
    const { ack } = await observer(svc.ingest, { obsName: 'o', key, groupCode: 'KEYCHK' });
    return ack;
  }
  it.each([
    ['401', 'KEY-UNKNOWN', 'Invalid Key'],
    ['403', 'KEY-EXPIRED', 'Expired Key'],
    ['500', 'KEY-BROKEN', 'Unknown Error'],
    ['no answer within OUTBOUND_TIMEOUT_MS', 'KEY-SLOW', 'Unknown Error'],
  ])('%s → %s', async (_n, key, reason) => {
    const t0 = Date.now();
    expect(await ackFor(key)).toEqual({ type: 'authenticate', value: false, reason });
    expect(Date.now() - t0).toBeLessThan(3000);
    const call = be.requests.filter((r) => r.path === `/system/validateAccessKey/${key}`).at(-1)!;
    expect(call.method).toBe('GET');
    expect(call.headers['x-user-token']).toBe(BACKEND_TOKEN);
  });
  it('no match was created by the refused keys', async () => {
    expect(await svc.admin.has('KEYCHK')).toBe(false);
  });
});

describe('a non-supporter organisation', () => {
  it('registers, updates and completes the match; no statistics calls', async () => {
    be.reset();
    const code = 'FREE01';
    const { final, atStart } = await playMatch('KEY-FREE', code, true);
    expectFinal(final);
    expect(atStart.organizationId).toBe('org-free');
    expect(atStart.orgIsSupporter).toBe(false);
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    expect(matchCalls(code, 'register')).toHaveLength(1);
    expect(matchCalls(code, 'update')).toHaveLength(18);
    // The statistics calls are decided as the match's effects run, in order (addMatch right after
    // the registration), and the match's removal follows its last effects: once it is gone and its
    // completion (a later call on the same path) arrived, a statistics call would have come.
    await expect.poll(() => svc.admin.has(code)).toBe(false);
    expect(be.requests.filter((r) => r.path.startsWith('/stats/'))).toEqual([]);
    // The supporter check was asked for this organisation.
    expect(be.requests.some((r) => r.path === '/supporter/org-free')).toBe(true);
  });
});

describe('a supporter organisation', () => {
  it('register → updates (rounds 2–19) → complete with the match record; addMatch and updateMatchRegion to the stats backend', async () => {
    be.reset();
    const code = 'SUPP01';
    const { final, atStart, secret } = await playMatch('KEY-SUP', code, true);
    expectFinal(final);
    expect(atStart.orgIsSupporter).toBe(true);
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    const completedAt = Date.now();

    const calls = matchCalls(code);
    const kinds = calls.map((r) => r.path.split('/').at(-1));
    expect(kinds[0]).toBe('register');
    expect(kinds.at(-1)).toBe('complete');
    expect(kinds.filter((k) => k === 'update')).toHaveLength(18);
    expect(kinds).toHaveLength(20);

    for (const r of calls) {
      expect(r.path).toMatch(new RegExp(`^/system/match/${MATCH_ID}/(register|update|complete)$`));
      expect(r.headers['x-user-token']).toBe(BACKEND_TOKEN);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.headers).not.toHaveProperty('authentication');
      expect(r.body).not.toContain(secret);
      const body = bodyOf(r);
      expect(Object.keys(body)).toEqual(['match']);
      const match = body.match as Record<string, unknown>;
      for (const k of ['groupSecret', 'stateVersion', 'replayLog', 'timeoutEndTimeout', 'timeoutRemainingLoop']) expect(match).not.toHaveProperty(k);
      expect(match.matchId).toBe(MATCH_ID);
      expect(match.groupCode).toBe(code);
      expect(match.organizationId).toBe('org-sup');
      expect((match.teams as unknown[]).length).toBe(2);
    }
    const register = calls[0];
    expect(register.method).toBe('POST');
    expect((bodyOf(register).match as { isRunning: boolean }).isRunning).toBe(true);
    const updates = calls.filter((r) => r.path.endsWith('/update'));
    for (const u of updates) expect(u.method).toBe('PUT');
    const updateRounds = updates.map((u) => bodyOf(u).match as { roundNumber: number; roundPhase: string });
    expect(updateRounds.every((m) => m.roundPhase === 'shopping')).toBe(true);
    expect(updateRounds.map((m) => m.roundNumber).sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i + 2));
    const complete = calls.at(-1)!;
    expect(complete.method).toBe('PUT');
    const done = bodyOf(complete).match as { roundPhase: string; isRunning: boolean; teams: { roundsWon: number }[] };
    expect(done.roundPhase).toBe('game_end');
    expect(done.isRunning).toBe(false);
    expect(done.teams.map((t) => t.roundsWon)).toEqual([6, 13]);

    // Statistics backend: its own header, supporter only.
    const addMatch = be.requests.filter((r) => r.path === '/stats/addMatch');
    expect(addMatch).toHaveLength(1);
    expect(addMatch[0].method).toBe('POST');
    expect(bodyOf(addMatch[0])).toEqual({ code, matchUuid: MATCH_ID });
    expect(addMatch[0].headers.authentication).toBe(STATS_TOKEN);
    expect(addMatch[0].headers).not.toHaveProperty('x-user-token');
    const region = be.requests.filter((r) => r.path === '/stats/updateMatchRegion');
    expect(region).toHaveLength(1);
    expect(bodyOf(region[0])).toEqual({ matchUuid: MATCH_ID, accountPuuid: atStart.teams[0].players[0].riotId });
    expect(region[0].headers.authentication).toBe(STATS_TOKEN);
    // Both came after the registration was requested.
    expect(be.requests.indexOf(addMatch[0])).toBeGreaterThan(be.requests.indexOf(register));

    // fetchMatchStats is due 15 s after the end, not now. A fixed wait: what is tested is a delay on
    // the service's clock, and nothing observable happens at its start (no event replaces it).
    await sleep(Math.max(0, 500 - (Date.now() - completedAt)));
    expect(be.requests.some((r) => r.path === '/stats/fetchMatchStats')).toBe(false);
  });
});

describe('a failing backend does not stop the match', () => {
  it('registration answered 500: it still counts as registered (any HTTP answer); updates and completion follow, the match runs to its end', async () => {
    be.reset();
    mode.register = '500';
    const code = 'FAIL01';
    const { final } = await playMatch('KEY-FREE', code, true);
    expectFinal(final);
    expect(final.isRegistered).toBe(true);
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    expect(matchCalls(code, 'register')).toHaveLength(1);
    expect(matchCalls(code, 'update')).toHaveLength(18);
    await expect.poll(() => svc.admin.has(code)).toBe(false);
    expect(svc.logs.some((l) => l.includes('"backend call answered non-200"') && l.includes(code) && l.includes('"status":500'))).toBe(true);
  });

  it('registration hanging beyond OUTBOUND_TIMEOUT_MS: the call times out, the match runs to its end', async () => {
    be.reset();
    mode.register = 'hang';
    const code = 'FAIL02';
    const { fe, final } = await playMatch('KEY-FREE', code, false);
    expectFinal(final);
    expect(fe.frames.every((f) => f.isRegistered === false)).toBe(true);
    // Updates and the completion wait for the registration's answer; once the match is gone and the
    // registration has failed (logged), none can be sent any more.
    await expect.poll(() => svc.admin.has(code)).toBe(false);
    await expect.poll(() => svc.logs.some((l) => l.includes('"backend call failed"') && l.includes(code))).toBe(true);
    expect(matchCalls(code, 'register')).toHaveLength(1);
    expect(matchCalls(code, 'update')).toHaveLength(0);
    expect(matchCalls(code, 'complete')).toHaveLength(0);
  });

  it('updates hanging and completion and statistics answered 500: every call is tried, frames keep coming, final state right', async () => {
    be.reset();
    mode.update = 'hang';
    mode.complete = '500';
    mode.stats = '500';
    const code = 'FAIL03';
    // The rest of the match at 1/2000 of its recorded pace (about 1.1 s), so that frames flow while calls hang.
    const { fe, final } = await playMatch('KEY-SUP', code, true, (f) => {
      const times: number[] = [];
      frameTimes.set(f, times);
      f.socket.on('match_data', () => times.push(Date.now()));
    }, 2000);
    expectFinal(final);
    // Frames kept coming while the update calls hung: many arrived after the first hung update.
    const firstUpdateAt = arrivedAt.get(matchCalls(code, 'update')[0])!;
    expect(frameTimes.get(fe)!.filter((t) => t > firstUpdateAt).length).toBeGreaterThanOrEqual(5);
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    expect(matchCalls(code, 'update')).toHaveLength(18);
    expect(be.requests.filter((r) => r.path === '/stats/addMatch')).toHaveLength(1);
    await expect.poll(() => svc.admin.has(code)).toBe(false);
    await expect.poll(() => svc.logs.filter((l) => l.includes('"backend call failed"') && l.includes(code) && l.includes('"call":"update"')).length).toBeGreaterThanOrEqual(18);
    // The service still takes new matches.
    const { ack: parsed } = await observer(svc.ingest, { obsName: 'o', key: 'KEY-FREE', groupCode: 'AFTER1' });
    expect(parsed.value).toBe(true);
    groupSecrets.push(parsed.reason);
  });
});

/** An overlay and an observer on a new match of `service`, up to its match_start; `gone` resolves when the service closes the observer. */
async function startedMatch(service: TestService, code: string, matchId: string, logon: Record<string, unknown> = {}) {
  const fe = await overlay(service.broadcast, code);
  overlays.push(fe);
  const { socket: s, ack } = await observer(service.ingest, { obsName: 'o', key: 'KEY-FREE', groupCode: code, ...logon });
  sockets.push(s);
  expect(ack.value).toBe(true);
  groupSecrets.push(ack.reason);
  const gone = new Promise<string>((resolve) => s.once('disconnect', (r: string) => resolve(r)));
  s.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'match_start', data: matchId }));
  return { fe, gone };
}

describe('a match that ends before its registration is answered', () => {
  let quick: TestService;
  beforeAll(async () => {
    quick = await startTestService({
      USE_BACKEND: 'true', BACKEND_URL: be.url, BACKEND_TOKEN, OUTBOUND_TIMEOUT_MS: '20000', INACTIVITY_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await quick?.close();
    be.handle(handler);
  });

  it('is completed once the registration answer comes, not before', async () => {
    be.reset();
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    be.handle((req) => (req.path.endsWith('/register') && req.path.includes('late-reg') ? { status: 200, json: {}, after: released } : handler(req)));
    const code = 'LATERG';
    const { fe, gone } = await startedMatch(quick, code, 'late-reg-0001');
    await expect.poll(() => matchCalls(code, 'register').length).toBe(1);
    // Inactivity removes the match (its observer is disconnected) while the registration still waits for its answer.
    expect(await gone).toBe('io server disconnect');
    const last = await fe.waitFor((f) => f.matchId === 'late-reg-0001' && f.isRunning === false);
    expect(last.isRegistered).toBe(false);
    expect(matchCalls(code, 'complete')).toHaveLength(0);
    release();
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    expect(matchCalls(code, 'complete')[0].path).toBe('/system/match/late-reg-0001/complete');
    expect((bodyOf(matchCalls(code, 'complete')[0]).match as { matchId: string }).matchId).toBe('late-reg-0001');
  });
});

describe('inactivity of a registered match', () => {
  let short: TestService;
  beforeAll(async () => {
    short = await startTestService({
      USE_BACKEND: 'true', BACKEND_URL: be.url, BACKEND_TOKEN, SUPPORTER_CHECK_URL: `${be.url}/supporter`,
      STATS_BACKEND_URL: `${be.url}/stats`, STATS_BACKEND_TOKEN: STATS_TOKEN, OUTBOUND_TIMEOUT_MS: '1000', INACTIVITY_TIMEOUT_MS: '3000', // the registration answer comes before the removal
    });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('the completion is sent when the match is removed for inactivity', async () => {
    be.reset();
    const code = 'IDLE01';
    const { fe, gone } = await startedMatch(short, code, 'idle-match-0001', {
      leftTeam: { name: 'a', tricode: 'a', url: '', attackStart: true }, rightTeam: { name: 'b', tricode: 'b', url: '', attackStart: false },
    });
    await fe.waitFor((f) => f.isRegistered === true);
    expect(matchCalls(code, 'complete')).toHaveLength(0);
    expect(await gone).toBe('io server disconnect');
    await expect.poll(() => matchCalls(code, 'complete').length).toBe(1);
    const complete = matchCalls(code, 'complete')[0];
    expect(complete.method).toBe('PUT');
    expect(complete.path).toBe('/system/match/idle-match-0001/complete');
    expect(complete.headers['x-user-token']).toBe(BACKEND_TOKEN);
    expect((bodyOf(complete).match as { matchId: string }).matchId).toBe('idle-match-0001');
    expect(matchCalls(code, 'update')).toHaveLength(0);
    expect(await short.metric('ods_live_matches')).toBe(0);
  });
});

describe('player cameras and name overrides', () => {
  it('the service fetches them with identifier and secret; frames carry the answer, never the secret', async () => {
    be.reset();
    const code = 'CAMS01';
    const fe = await overlay(svc.broadcast, code);
    overlays.push(fe);
    const { socket: s, ack: parsed } = await observer(svc.ingest, {
      obsName: 'o', key: 'KEY-FREE', groupCode: code,
      leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true }, rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
      toolsData: { playercamsInfo: { enable: true, removeTricodes: false, identifier: 'PCAM01', secret: CAM_SECRET, endTime: 1774036800000 } },
    });
    sockets.push(s);
    expect(parsed.value).toBe(true);
    groupSecrets.push(parsed.reason);

    await expect.poll(() => be.requests.filter((r) => r.path.startsWith('/cams/')).length).toBe(1);
    const call = be.requests.find((r) => r.path.startsWith('/cams/'))!;
    expect(call.method).toBe('GET');
    expect(call.path).toBe(`/cams/api/getNameOverridesAndPlayercams/PCAM01/${CAM_SECRET}`);
    // The answer is applied (a frame raised by it), then mapped to full names once the player joins.
    await fe.waitFor((f) => ((f.tools as { playercamsInfo: { enabledPlayers?: string[] } }).playercamsInfo.enabledPlayers ?? []).length === 1);
    s.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'roster', data: { name: 'Lumen', tagline: 'NA1', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-cam1', position: 0, locked: true, rank: 0 } }));
    const f = await fe.waitFor((x) => (x.teams as { players: unknown[] }[])[0].players.length === 1);
    const tools = f.tools as { playercamsInfo: Record<string, unknown>; nameOverrides: { overrides: string } };
    expect(tools.playercamsInfo.enabledPlayers).toEqual(['Lumen#NA1']);
    expect(JSON.parse(tools.nameOverrides.overrides)).toEqual([['Lumen#NA1', 'Override One']]);
    expect(tools.playercamsInfo.identifier).toBe('PCAM01');
    expect(tools.playercamsInfo.enable).toBe(true);
    expect(tools.playercamsInfo).not.toHaveProperty('secret');
    expect(tools.playercamsInfo).not.toHaveProperty('endTime');
    s.close();
  });

  it('no group secret, token or player-camera secret in any frame or log line', () => {
    const secrets = [CAM_SECRET, BACKEND_TOKEN, STATS_TOKEN, ...groupSecrets];
    expect(groupSecrets.length).toBeGreaterThanOrEqual(6);
    const raws = overlays.flatMap((f) => f.raw);
    expect(raws.length).toBeGreaterThan(20);
    for (const raw of raws) for (const s of secrets) expect(raw.includes(s), `frame contains ${s}`).toBe(false);
    for (const line of svc.logs) for (const s of secrets) expect(line.includes(s), `log line contains ${s}: ${line}`).toBe(false);
  });
});
