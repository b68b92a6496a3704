// Match lifetime end to end (docs/interface.md 3.3, docs/match-rules.md 14): the recorded match played to
// its end (final frame, removal, sockets closed, post-match team info, a new match for the same
// code), and removal for inactivity with a short INACTIVITY_TIMEOUT_MS (sockets closed, /status,
// running timers keep a match alive).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { auxClient as auxLoggedOn, closeAll, overlay, observer as observerClient, serverDisconnect } from '../../helpers/clients.js';
import { recordedMatch, recordIndex, replayMatchId, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();
const REPLAY_MATCH_ID = replayMatchId(replay);
const MATCH_START_INDEX = recordIndex(replay, 'match_start');

const AUTH_KEY = 'LIFECYCLE-KEY';
const TEAMS = {
  leftTeam: { name: 'Left', tricode: 'LFT', url: '', attackStart: true },
  rightTeam: { name: 'Right', tricode: 'RGT', url: '', attackStart: false },
};

const sockets: Socket[] = [];
async function observer(ingest: string, groupCode: string, extra: Record<string, unknown> = {}): Promise<{ s: Socket; ack: { value: boolean; reason: string } }> {
  const { socket: s, ack } = await observerClient(ingest, { obsName: 'Obs#1', key: AUTH_KEY, groupCode, ...TEAMS, ...extra });
  sockets.push(s);
  return { s, ack };
}
async function auxClient(ingest: string, matchId: string, playerId: string): Promise<Socket> {
  const { socket: s, ack } = await auxLoggedOn(ingest, { name: 'x#1', matchId, playerId });
  sockets.push(s);
  expect(ack).toEqual({ type: 'aux_authenticate', value: true, reason: '' });
  return s;
}
const obsEnv = (groupCode: string, type: string, data: unknown) => JSON.stringify({ obsName: 'Obs#1', groupCode, type, data });
const status = async (rest: string) => ((await (await fetch(`${rest}/status`)).json()) as { status: string; matchesRunning: number });

afterAll(() => {
  for (const s of sockets) s.close();
  closeAll();
});

describe('game end', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('final frame, then removal, sockets closed, post-match team info; a new logon starts a new match', async () => {
    const code = 'ENDG01';
    const fe = await overlay(svc.broadcast, code);
    const { socket: obs, ack } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code });
    sockets.push(obs);
    expect(ack.value).toBe(true);
    const secret = ack.reason;
    const obsGone = serverDisconnect(obs, 30_000);

    // Up to a little after match_start, then an auxiliary client joins, then the rest.
    await sendRecords(obs, replay, { pace: 'instant', groupCode: code, to: MATCH_START_INDEX + 5 });
    await fe.waitFor((f) => f.matchId === REPLAY_MATCH_ID);
    expect((await status(svc.rest)).matchesRunning).toBe(1);
    const firstPlayer = (replay.records.find((r) => r.type === 'roster')!.data as { playerId: string }).playerId;
    const aux = await auxClient(svc.ingest, REPLAY_MATCH_ID, firstPlayer);
    const auxGone = serverDisconnect(aux, 30_000);
    await sendRecords(obs, replay, { pace: 'instant', groupCode: code, from: MATCH_START_INDEX + 5 });

    const final = await fe.waitFor((f) => f.roundPhase === 'game_end', 20_000) as { isRunning: boolean; roundNumber: number; teams: { roundsWon: number }[] };
    expect(final.isRunning).toBe(false);
    expect(final.roundNumber).toBe(19);
    expect(final.teams.map((t) => t.roundsWon)).toEqual([6, 13]);
    expect(await obsGone).toBe('io server disconnect');
    expect(await auxGone).toBe('io server disconnect');
    await expect.poll(() => svc.metric('ods_live_matches')).toBe(0);
    expect((await status(svc.rest)).matchesRunning).toBe(0);
    // The game_end frame went out once, and it was the last one so far (that no frame comes after
    // it is shown below: the next frame this overlay receives is the new match's lobby).
    expect(fe.frames.filter((f) => f.roundPhase === 'game_end')).toHaveLength(1);
    expect(fe.frames.at(-1)!.roundPhase).toBe('game_end');
    const gameEndAt = fe.frames.length - 1;

    const info = (await (await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`)).json()) as Record<string, unknown>;
    expect(info.higherScore).toBe(1);
    expect(info.leftTeam).toEqual(replay.header.leftTeam);
    expect(info.rightTeam).toEqual(replay.header.rightTeam);
    expect(info.isSupporter).toBe(false);
    expect(info).toHaveProperty('tournamentInfo');
    expect(info).toHaveProperty('sponsorInfo');

    // The game's match id is gone with it.
    const lateAux = await auxLoggedOn(svc.ingest, { matchId: REPLAY_MATCH_ID, playerId: firstPlayer });
    sockets.push(lateAux.socket);
    expect(lateAux.ack).toEqual({ type: 'aux_authenticate', value: false, reason: `Game with Match ID ${REPLAY_MATCH_ID} not found.` });

    // The operator connects again with the old secret: a new match with a new secret.
    const before = fe.frames.length;
    const again = await observer(svc.ingest, code, { groupSecret: secret });
    expect(again.ack.value).toBe(true);
    expect(again.ack.reason).toMatch(/^[A-Z0-9]{16}$/);
    expect(again.ack.reason).not.toBe(secret);
    const lobby = await fe.waitFor((f) => fe.frames.indexOf(f) >= before && f.roundPhase === 'LOBBY') as { map: string; matchId: string; teams: { teamName: string; roundsWon: number; players: unknown[] }[] };
    expect(lobby.map).toBe('Loading');
    expect(lobby.matchId).toBe('');
    expect(lobby.teams.map((t) => [t.teamName, t.roundsWon, t.players.length])).toEqual([['Left', 0, 0], ['Right', 0, 0]]);
    // The marker: the same group code runs on the same shard and reaches this overlay on the same
    // path; nothing came between the old match's game_end and the new match's first frame.
    expect(fe.frames.indexOf(lobby)).toBe(gameEndAt + 1);
    const fresh = (await (await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`)).json()) as Record<string, unknown>;
    expect(fresh).toEqual({ leftTeam: TEAMS.leftTeam, rightTeam: TEAMS.rightTeam });
    expect((await status(svc.rest)).matchesRunning).toBe(1);
    // The old secret does not open the new match.
    const old = await observer(svc.ingest, code, { groupSecret: secret });
    expect(old.ack).toEqual({ type: 'authenticate', value: false, reason: `Game with Group Code ${code} exists and is still live.` });
    again.s.close();
  });
});

describe('inactivity', () => {
  let svc: TestService;
  beforeAll(async () => {
    // 2.5 s: long enough that a loaded CI machine does not time the match out between two messages.
    svc = await startTestService({ AUTH_KEY, INACTIVITY_TIMEOUT_MS: '2500' });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('a match without new events is removed; its observer and auxiliary sockets are disconnected', async () => {
    const code = 'INAC01';
    const fe = await overlay(svc.broadcast, code);
    const { s, ack } = await observer(svc.ingest, code);
    expect(ack.value).toBe(true);
    const gone = serverDisconnect(s, 10_000);
    // The match's last activity comes after this (not after the frame arrives here, which can be late).
    const lastSentAt = Date.now();
    s.emit('obs_data', obsEnv(code, 'roster', { name: 'A', tagline: '1', startTeam: '0', agentInternal: 'Hunter', playerId: 'p-a', position: 0, locked: true, rank: 0 }));
    s.emit('obs_data', obsEnv(code, 'match_start', 'inactive-match-id'));
    await fe.waitFor((f) => f.matchId === 'inactive-match-id');
    const aux = await auxClient(svc.ingest, 'inactive-match-id', 'p-a');
    const auxGone = serverDisconnect(aux, 10_000);
    expect((await status(svc.rest)).matchesRunning).toBe(1);

    expect(await gone).toBe('io server disconnect');
    const removedAfter = Date.now() - lastSentAt;
    expect(removedAfter).toBeGreaterThanOrEqual(2200);
    expect(removedAfter).toBeLessThan(5500);
    expect(await auxGone).toBe('io server disconnect');
    expect((await status(svc.rest)).matchesRunning).toBe(0);
    expect(await svc.admin.has(code)).toBe(false);
    expect(svc.logs.some((l) => l.includes('"match removed"') && l.includes('"inactive"') && l.includes(code))).toBe(true);
    // Team info stays until its own expiry.
    expect((await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`)).status).toBe(200);

    // A new logon (no secret needed now) creates a new match.
    const framesBefore = fe.frames.length;
    const again = await observer(svc.ingest, code);
    expect(again.ack.value).toBe(true);
    expect(again.ack.reason).toMatch(/^[A-Z0-9]{16}$/);
    const lobby = await fe.waitFor((f) => f.matchId === '' && fe.frames.indexOf(f) >= framesBefore);
    expect((lobby.teams as { players: unknown[] }[])[0].players).toEqual([]);
    again.s.close();
  });

  it('a running timeout countdown keeps the match alive; it is removed once the countdown is over', async () => {
    const code = 'INAC02';
    const fe = await overlay(svc.broadcast, code);
    const { s, ack } = await observer(svc.ingest, code, { toolsData: { timeoutDuration: 5 } });
    expect(ack.value).toBe(true);
    const gone = serverDisconnect(s, 30_000); // the removal comes 7.5 s after the countdown starts at the earliest
    let removedAt = 0;
    void gone.then(() => { removedAt = Date.now(); });
    await fe.waitFor(() => true);
    const started = Date.now();
    s.emit('obs_data', obsEnv(code, 'left_timeout', true));
    await fe.waitFor((f) => (f.timeoutState as { leftTeam: boolean }).leftTeam === true);
    // The countdown's own frames, on the service's clock: 1 s remaining is 4 s after it started.
    await fe.waitFor((f) => (f.timeoutState as { leftTeam: boolean; timeRemaining: number }).leftTeam === true && (f.timeoutState as { timeRemaining: number }).timeRemaining === 1);
    // Without the countdown it would be gone by now (2.5 s).
    expect(await svc.admin.has(code)).toBe(true);
    expect(removedAt).toBe(0);
    const ended = await fe.waitFor((f) => (f.tools as { timeoutCounter: { left: number } }).timeoutCounter.left === 1);
    expect((ended.timeoutState as { leftTeam: boolean; timeRemaining: number })).toMatchObject({ leftTeam: false, timeRemaining: 1 });
    expect(await gone).toBe('io server disconnect');
    expect(removedAt - started).toBeGreaterThanOrEqual(5000 + 2400);
    await expect.poll(async () => (await status(svc.rest)).matchesRunning).toBe(0);
  }, 60_000);
});
