// Rehearsals (README, "Rehearsals") against the real service over real HTTP and sockets: the admin
// API with and without the token; the recorded match at 10× reaching game_end at an overlay with the
// operator's team names and the recording's score; pause holding the frames; seek to round 10 (and
// back); a real observer's logon ending a rehearsal; uploads refused when malformed or oversized and
// accepted (without their secrets) when valid; and no backend call for any of it (a real backend
// HTTP server records every request; a live match on it is registered, as a control).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { startBackend, type FakeBackend } from '../../helpers/backends.js';
import { closeAll, overlay, observer, TEAMS } from '../../helpers/clients.js';
import { recordedMatch, recordIndex, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { sleep } from '../../helpers/waits.js';

const replay = recordedMatch();
const AUTH_KEY = 'REHEARSAL-TEST-KEY';
const OPERATOR_TEAMS = {
  leftTeam: { name: 'Northern Lights', tricode: 'NLX', url: 'https://cdn.example.org/nl.png' },
  rightTeam: { name: 'Southern Cross', tricode: 'SCX', url: 'https://cdn.example.org/sc.png' },
};

type Team = { teamName: string; roundsWon: number; players: unknown[] };
type Frame = { teams: Team[]; roundNumber: number; roundPhase: string; isRunning: boolean };
const frame = (f: Record<string, unknown>) => f as unknown as Frame;

/** Index of round n's first record (its first round_info). */
const roundStart = (n: number) => replay.records.findIndex((r) => r.type === 'round_info' && (r.data as { roundNumber: number }).roundNumber === n);
/** The score at the start of round n: the last score record before it ([team_0, team_1]). */
function scoreBefore(n: number): [number, number] {
  let score: [number, number] = [0, 0];
  for (const r of replay.records.slice(0, roundStart(n))) if (r.type === 'score') { const d = r.data as { team_0: number; team_1: number }; score = [d.team_0, d.team_1]; }
  return score;
}

let be: FakeBackend;
let svc: TestService;
const sockets: Socket[] = [];

beforeAll(async () => {
  be = await startBackend((req) => (req.path.startsWith('/system/match/') ? { status: 200, json: {} } : { status: 404, json: {} }));
  svc = await startTestService({ AUTH_KEY, USE_BACKEND: 'true', BACKEND_URL: be.url, BACKEND_TOKEN: 'backend-token', REHEARSAL_MAX_UPLOAD_BYTES: '262144' });
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  closeAll();
  // Every test leaves no rehearsal behind.
  for (const r of (await rehearsals()).rehearsals) await svc.admin.request('POST', `/admin/rehearsals/${r.groupCode}/stop`);
});
afterAll(async () => {
  await svc?.close();
  await be?.close();
});

const auth = () => ({ authorization: `Bearer ${svc.admin.token}`, 'content-type': 'application/json' });
async function post(path: string, body?: unknown, headers: Record<string, string> = auth()): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${svc.rest}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function rehearsals(): Promise<{ rehearsals: Array<{ groupCode: string; state: string; round: number; position: number }> }> {
  const res = await fetch(`${svc.rest}/admin/rehearsals`, { headers: auth() });
  return (await res.json()) as never;
}
const status = async (code: string) => (await rehearsals()).rehearsals.find((r) => r.groupCode === code);


describe('the rehearsal routes', () => {
  it('need the admin token (401 without, or with a wrong one)', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token-at-all' }] as Record<string, string>[]) {
      expect((await fetch(`${svc.rest}/admin/rehearsals`, { headers })).status).toBe(401);
      expect((await post('/admin/rehearsals', { groupCode: 'NOAUTH' }, headers)).status).toBe(401);
      for (const a of ['pause', 'resume', 'seek', 'stop']) expect((await post(`/admin/rehearsals/NOAUTH/${a}`, {}, headers)).status).toBe(401);
    }
    expect(await svc.admin.has('NOAUTH')).toBe(false);
    expect((await rehearsals()).rehearsals).toEqual([]);
  });

  it('refuse bad requests with a clear error', async () => {
    expect(await post('/admin/rehearsals', 'not json')).toMatchObject({ status: 400, body: { error: expect.stringContaining('JSON object') } });
    expect(await post('/admin/rehearsals', { groupCode: 'BADSPD', speed: 3 })).toMatchObject({ status: 400, body: { error: 'speed must be one of 1, 2, 5, 10' } });
    expect(await post('/admin/rehearsals', { groupCode: 'BADRND', startRound: 40 })).toMatchObject({ status: 400, body: { error: expect.stringContaining('startRound') } });
    expect(await post('/admin/rehearsals', { groupCode: 'BADPRV', fromPreview: 'NOPREV' })).toMatchObject({ status: 404 });
    expect((await post('/admin/rehearsals/NOSUCH/pause')).status).toBe(404);
    expect((await post('/admin/rehearsals/NOSUCH/seek', { round: 'x' })).status).toBe(400);
    expect(await svc.admin.codes()).toEqual([]);
  });
});

describe('a rehearsal of the recorded match', () => {
  it('at 10× reaches game_end at an overlay with the operator\'s teams and the recording\'s score; no backend call', async () => {
    const code = 'RH10X';
    const fe = await overlay(svc.broadcast, code);
    // From the last round (19): the seek, the 10× pace and the end, in one round of the game (~12 s).
    const started = await post('/admin/rehearsals', { groupCode: code, speed: 10, startRound: 19, ...OPERATOR_TEAMS });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ groupCode: code, speed: 10, startRound: 19, recording: 'recorded', state: 'playing' });
    // A rehearsal on the dashboard's data and GET /getTeamInfoForCode, like a live match.
    expect(await svc.admin.match(code)).toMatchObject({ groupCode: code, rehearsal: true });
    const info = await (await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`)).json() as { leftTeam: { name: string } };
    expect(info.leftTeam.name).toBe('Northern Lights');
    const round19 = frame(await fe.waitFor((f) => frame(f).roundNumber === 19));
    expect(round19.teams.map((t) => t.roundsWon)).toEqual(scoreBefore(19));
    const end = frame(await fe.waitFor((f) => frame(f).roundPhase === 'game_end', 90_000));
    expect(end.teams.map((t) => t.teamName)).toEqual(['Northern Lights', 'Southern Cross']);
    expect(end.teams.map((t) => t.roundsWon)).toEqual([6, 13]);
    expect(end.isRunning).toBe(false);
    // It ends by itself at the recording's end.
    await expect.poll(() => svc.admin.has(code)).toBe(false);
    await expect.poll(async () => (await rehearsals()).rehearsals.length).toBe(0);
    expect(be.requests.filter((r) => r.path.startsWith('/system/match/'))).toEqual([]);
  }, 120_000);

  it('pause holds the frames; resume goes on', async () => {
    const code = 'RHPAUSE';
    const fe = await overlay(svc.broadcast, code);
    expect((await post('/admin/rehearsals', { groupCode: code, speed: 10, startRound: 2 })).status).toBe(201);
    await fe.waitFor((f) => frame(f).roundNumber === 2);
    const paused = await post(`/admin/rehearsals/${code}/pause`);
    expect(paused).toMatchObject({ status: 200, body: { state: 'paused' } });
    const position = (await status(code))!.position;
    // The hold. A fixed wait: a pause is shown over time, and nothing in the service marks "still
    // paused". The playback delivers nothing meanwhile (its position stays), so no frame can come
    // but those of what it had delivered before the pause.
    await sleep(1500);
    expect((await status(code))!.position).toBe(position);
    // Those are out (the overlay holds every frame published), and nothing follows them.
    await expect.poll(async () => (await svc.frameNo(code)) === fe.frames.length).toBe(true);
    const held = fe.frames.length;
    expect((await status(code))!.position).toBe(position);
    expect(await post(`/admin/rehearsals/${code}/resume`)).toMatchObject({ status: 200, body: { state: 'playing' } });
    await expect.poll(() => fe.frames.length).toBeGreaterThan(held);
  }, 60_000);

  it('seek to round 10 shows round 10\'s state; seeking back to round 3 starts the match again clean', async () => {
    const code = 'RHSEEK';
    const fe = await overlay(svc.broadcast, code);
    expect((await post('/admin/rehearsals', { groupCode: code, speed: 1 })).status).toBe(201);
    const seek = await post(`/admin/rehearsals/${code}/seek`, { round: 10 });
    expect(seek).toMatchObject({ status: 200, body: { round: 10 } });
    const r10 = frame(await fe.waitFor((f) => frame(f).roundNumber === 10));
    expect(r10.teams.map((t) => t.roundsWon)).toEqual(scoreBefore(10));
    expect(r10.teams[0].players).toHaveLength(5);
    const back = await post(`/admin/rehearsals/${code}/seek`, { round: 3 });
    expect(back.status).toBe(200);
    await expect.poll(async () => (await status(code))?.round).toBe(3);
    const seen = fe.frames.length;
    const r3 = frame(await fe.waitFor((f) => fe.frames.indexOf(f) >= seen && frame(f).roundNumber === 3));
    expect(r3.teams.map((t) => t.roundsWon)).toEqual(scoreBefore(3));
    expect(await svc.admin.match(code)).toMatchObject({ rehearsal: true });
    expect(await post(`/admin/rehearsals/${code}/stop`)).toMatchObject({ status: 200, body: { stopped: true } });
    expect(await svc.admin.has(code)).toBe(false);
  }, 60_000);

  it('ends at once when a real observer logs on to its code; the overlay then shows only the live match', async () => {
    const code = 'RHLIVE';
    const fe = await overlay(svc.broadcast, code);
    expect((await post('/admin/rehearsals', { groupCode: code, speed: 10, startRound: 5, ...OPERATOR_TEAMS })).status).toBe(201);
    await fe.waitFor((f) => frame(f).roundNumber >= 5);
    const live = await observer(svc.ingest, { key: AUTH_KEY, groupCode: code, clientVersion: replay.header.clientVersion ?? '0.3.3' });
    sockets.push(live.socket);
    expect(live.ack.value).toBe(true);
    expect(live.ack.reason).toMatch(/^[A-Z0-9]{16}$/);
    expect((await rehearsals()).rehearsals).toEqual([]);
    expect(await svc.admin.match(code)).not.toHaveProperty('rehearsal');
    const firstLive = fe.frames.length;
    // The live match: the recording's first records (lobby, agent select, match_start) under the live teams.
    await sendRecords(live.socket, replay, { pace: 'instant', groupCode: code, to: recordIndex(replay, 'match_start') + 1 });
    const liveFrame = frame(await fe.waitFor((f) => frame(f).teams[0].teamName === TEAMS.leftTeam.name));
    expect(liveFrame.roundNumber).toBeLessThanOrEqual(1);
    expect(liveFrame.teams.map((t) => t.roundsWon)).toEqual([0, 0]);
    // The marker: a later change of the live match's own, on the same ordered path (same group
    // code, same shard): anything the rehearsal had left in flight came before its frame.
    live.socket.emit('obs_data', JSON.stringify({ obsName: (replay.records[0] as { obsName: string }).obsName, groupCode: code, type: 'game_mode', data: 'swift' }));
    const marker = await fe.waitFor((f) => (f as { matchType?: string }).matchType === 'swift');
    const after = fe.frames.slice(fe.frames.indexOf(liveFrame as never), fe.frames.indexOf(marker) + 1);
    for (const f of after.map(frame)) {
      expect(f.teams.map((t) => t.teamName)).toEqual([TEAMS.leftTeam.name, TEAMS.rightTeam.name]);
      expect(f.roundNumber).toBeLessThanOrEqual(1);
      expect(f.teams.map((t) => t.roundsWon)).toEqual([0, 0]);
    }
    expect(fe.frames.length).toBeGreaterThan(firstLive);
    // The live match is registered with the backend (a control: the rehearsal never was).
    await expect.poll(() => be.requests.filter((r) => r.path.startsWith('/system/match/')).length).toBeGreaterThan(0);
  }, 60_000);
});

describe('a rehearsal with a preview\'s teams and tools', () => {
  it('copies them from the preview code (the body\'s teams win where given)', async () => {
    const preview = await fetch(`${svc.rest}/createPreview`, {
      method: 'PUT', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        key: AUTH_KEY, ...OPERATOR_TEAMS,
        toolsData: { tournamentInfo: { name: 'Preview Masters', logoUrl: '', backdropUrl: '', enabled: true }, playercamsInfo: { enable: false, identifier: 'P1', secret: 'PREVIEW-CAM-SECRET' } },
      }),
    });
    expect(preview.status).toBe(200);
    const { previewCode } = (await preview.json()) as { previewCode: string };
    const code = 'RHPREV';
    const fe = await overlay(svc.broadcast, code);
    const started = await post('/admin/rehearsals', { groupCode: code, speed: 10, startRound: 4, fromPreview: previewCode, rightTeam: { name: 'Override Right', tricode: 'OVR', url: '' } });
    expect(started).toMatchObject({ status: 201, body: { teams: { left: { name: 'Northern Lights' }, right: { name: 'Override Right' } } } });
    const f = await fe.waitFor((x) => frame(x).roundNumber === 4);
    expect(frame(f).teams.map((t) => t.teamName)).toEqual(['Northern Lights', 'Override Right']);
    expect((f.tools as { tournamentInfo: { name: string } }).tournamentInfo.name).toBe('Preview Masters');
    for (const raw of fe.raw) expect(raw).not.toContain('PREVIEW-CAM-SECRET');
  }, 60_000);
});

describe('an uploaded replay', () => {
  const CAM_SECRET = 'CAM-SECRET-7Q2Z9';
  const KEY = 'LEAKED-ACCESS-KEY-4411';
  /** A replay file as RECORD_REPLAYS writes it, with secrets a careless file could carry. */
  function replayText(records = replay.records.slice(0, 60)): string {
    const header = {
      ...replay.header, key: KEY, groupSecret: 'GROUPSECRET0001',
      toolsData: { playercamsInfo: { enable: true, identifier: 'PCAM01', secret: CAM_SECRET }, tournamentInfo: { name: 'Upload Cup', logoUrl: '', backdropUrl: '', enabled: true } },
    };
    return [header, ...records.map((r, i) => (i === 3 ? { ...r, key: KEY } : r))].map((r) => JSON.stringify(r)).join(',\n');
  }
  /** The live matches and rehearsals before; afterwards: the same. */
  const unchanged = async () => {
    const before = await svc.admin.codes();
    return async () => {
      expect(await svc.admin.codes()).toEqual(before);
      expect((await rehearsals()).rehearsals).toEqual([]);
    };
  };

  it('is refused with a clear error when malformed, and nothing else changes', async () => {
    const nothingChanged = await unchanged();
    const cases: Array<[string, string]> = [
      ['{"a":1},\n{', 'not in the replay format'],
      [JSON.stringify({ groupCode: 'X' }) + ',\n' + JSON.stringify(replay.records[0]), 'leftTeam and rightTeam'],
      [JSON.stringify(replay.header), 'a header and at least one record'],
      [JSON.stringify(replay.header) + ',\n' + JSON.stringify({ type: 'map', data: 'Port' }), 'record 1 has no timestamp'],
      [JSON.stringify(replay.header) + ',\n' + '['.repeat(40) + ']'.repeat(40), 'nests deeper'],
    ];
    for (const [text, message] of cases) {
      const res = await post('/admin/rehearsals', { groupCode: 'UPBAD', recording: 'upload', replay: text });
      expect(res.status, message).toBe(400);
      expect(String(res.body.error)).toContain('Invalid replay');
      expect(String(res.body.error)).toContain(message);
    }
    expect((await post('/admin/rehearsals', { groupCode: 'UPBAD', recording: 'upload' })).status).toBe(400);
    await nothingChanged();
  });

  it('is refused when oversized (413), and nothing else changes', async () => {
    const nothingChanged = await unchanged();
    const big = replayText(Array.from({ length: 3000 }, (_, i) => replay.records[i % replay.records.length]));
    expect(big.length).toBeGreaterThan(262_144);
    const res = await post('/admin/rehearsals', { groupCode: 'UPBIG', recording: 'upload', replay: big });
    expect(res.status).toBe(413);
    expect(String(res.body.error)).toContain('REHEARSAL_MAX_UPLOAD_BYTES');
    // Past the route's body limit: refused before it is read.
    const huge = await post('/admin/rehearsals', { groupCode: 'UPBIG', recording: 'upload', replay: 'x'.repeat(2_200_000) });
    expect(huge.status).toBe(413);
    await nothingChanged();
  });

  it('plays when valid, without any of its secrets reaching an overlay or the logs', async () => {
    const code = 'UPOK';
    const fe = await overlay(svc.broadcast, code);
    const res = await post('/admin/rehearsals', { groupCode: code, recording: 'upload', replay: replayText(), speed: 10, startRound: 1 });
    expect(res).toMatchObject({ status: 201, body: { recording: 'upload', total: 60 } });
    const f = await fe.waitFor((x) => frame(x).roundNumber === 1);
    expect((f.tools as { tournamentInfo: { name: string } }).tournamentInfo.name).toBe('Upload Cup');
    expect((f.tools as { playercamsInfo: Record<string, unknown> }).playercamsInfo).not.toHaveProperty('secret');
    // Its recording's end without game_end: it ends by itself.
    await expect.poll(() => svc.admin.has(code), { timeout: 30_000 }).toBe(false);
    for (const text of [...fe.raw, ...svc.logs]) {
      expect(text).not.toContain(CAM_SECRET);
      expect(text).not.toContain(KEY);
    }
  }, 60_000);
});
