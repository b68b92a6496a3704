// A start.gg event in the loop (README, "Brackets: start.gg in the loop"; docs/brackets.md), against
// a real local stand-in for start.gg's GraphQL API that validates every request against its schema
// (test/helpers/startgg.ts): the operator links the event (admin API, with and without the admin
// token); its best of 3 between the recorded match's two teams becomes a fixture by itself (teams,
// logos, players' Riot IDs, best of, stream and station, a generated group code); three maps are
// played from the recording by real observers on that code (sides swapped on the second), each
// map's result is reported as game data and the winner at the end; start.gg is down (connection
// refused) while the last map ends and the report is not lost (the outage is 60 s: the retry
// timing is a setting, BRACKETS_RETRY_MS / _MAX_MS, so 3 s of real refusal exercise the same path
// at test speed); a correction is re-reported; every
// request was valid, and the token is in no answer and no log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { closeAll, serverDisconnect } from '../../helpers/clients.js';
import { fixture, playWholeMap, swappedTeams, withMatchId } from '../../helpers/fixtures.js';
import { recordedMatch, type Replay } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { StartggStandin, VALORANT_STAGES } from '../../helpers/startgg.js';
import { bo3Set, brackets, linkBracket, linkedSet, OWLS, WOLVES, type BracketSetView } from '../../helpers/brackets.js';

const AUTH_KEY = 'BRACKETS-LOOP-KEY';
const SG_TOKEN = 'sg-organiser-token-7d1e93b04c';
const SLUG = 'tournament/autumn-cup-2026/event/valorant-main';
const replay = recordedMatch();

describe('a start.gg event in the loop', () => {
  let sg: StartggStandin;
  let svc: TestService;
  let token: string;
  let set: BracketSetView;

  beforeAll(async () => {
    sg = await StartggStandin.start(SG_TOKEN);
    sg.events.set(SLUG, { id: 77, slug: SLUG, name: 'Autumn Cup 2026 – VALORANT', sets: [
      bo3Set(9001),
      { id: 9002, state: 1, round: 'Grand Final', totalGames: 5, entrants: [{ ...WOLVES }, null] }, // one side not known yet: no fixture
      { id: 9009, state: 3, round: 'Upper Bracket Semi-Final', totalGames: 3, entrants: [{ ...WOLVES }, { ...OWLS }] }, // completed: not read
    ] });
    svc = await startTestService({ AUTH_KEY, STARTGG_API_URL: sg.url, BRACKETS_POLL_MS: '500', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000', BRACKETS_TIMEOUT_MS: '2000' });
    token = svc.admin.token;
  }, 30_000);

  afterAll(async () => {
    closeAll();
    await svc?.close();
    await sg?.close();
  });

  const mapDone = async (code: string, observer: Socket, maps: number) => {
    if (observer.connected) await serverDisconnect(observer, 30_000);
    await expect.poll(async () => (await fixture(svc.rest, token, code))?.results.length, { timeout: 15_000 }).toBe(maps);
  };
  const play = (code: string, map: Replay, expected: [string, string]) => playWholeMap(svc, AUTH_KEY, code, map, { left: expected[0], right: expected[1] }, expected);
  const reports = () => sg.mutations.filter((m) => m.args.setId === '9001');

  it('links the event: refused without the admin token, the organiser\'s token never shown again', async () => {
    const refused = await fetch(`${svc.rest}/admin/brackets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: SLUG, token: SG_TOKEN }) });
    expect(refused.status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/brackets`)).status).toBe(401);
    expect((await linkBracket(svc.rest, token, { url: 'https://example.org/not/startgg', token: SG_TOKEN })).status).toBe(400);
    const linked = await linkBracket(svc.rest, token, { url: `https://www.start.gg/${SLUG}/overview`, token: SG_TOKEN });
    expect(linked.status).toBe(201);
    expect(linked.body.link).toMatchObject({ platform: 'startgg', mode: 'auto', target: { kind: 'event', ref: SLUG } });
    expect(linked.text).not.toContain(SG_TOKEN);
    expect((await linkBracket(svc.rest, token, { url: SLUG, token: SG_TOKEN })).status).toBe(409); // linked already
  });

  it('schedules the best of 3 by itself: teams, logos, Riot IDs, best of, stream and station, a generated code', async () => {
    await expect.poll(() => linkedSet(svc.rest, token, 9001), { timeout: 10_000 }).toBeDefined();
    set = (await linkedSet(svc.rest, token, 9001))!;
    expect(set).toMatchObject({ entrantIds: ['501', '502'], round: 'Upper Bracket Final', stream: 'autumncup_main', station: '3', teams: [WOLVES.name, OWLS.name], status: 'upcoming', flags: [] });
    expect(set.groupCode).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ0-9]{6}$/);
    const f = await fixture(svc.rest, token, set.groupCode) as unknown as { bestOf: number; teams: Array<{ name: string; url: string; players: string[] }> };
    expect(f.bestOf).toBe(3);
    expect(f.teams.map((t) => [t.name, t.url])).toEqual([[WOLVES.name, WOLVES.logo], [OWLS.name, OWLS.logo]]);
    expect(f.teams[0].players).toEqual(WOLVES.players.map((p) => p.riotId));
    expect(f.teams[1].players).toEqual(OWLS.players.flatMap((p) => (p.riotId ? [p.riotId] : [])));
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0].sync, { timeout: 10_000 }).toMatchObject({ lastError: null, errors: 0, sets: 1 });
    const view = await brackets(svc.rest, token);
    expect(view.sets.map((s) => s.setId)).toEqual(['9001']); // 9002 has one side, 9009 is completed
    expect(view.links[0]).toMatchObject({ name: 'Autumn Cup 2026 – VALORANT', sync: { lastError: null, errors: 0, sets: 1 } });
    expect(view.links[0].sync!.nextSyncAt).toBeGreaterThan(view.links[0].sync!.lastSyncAt!);
    // The observers' list: CSV per stream or station, admin token required.
    expect((await fetch(`${svc.rest}/admin/brackets/codes.csv`)).status).toBe(401);
    const csv = await (await fetch(`${svc.rest}/admin/brackets/codes.csv?station=3`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(csv.trim().split('\n')).toEqual(['stream,station,group_code,round,team1,team2,status,set_id', `autumncup_main,3,${set.groupCode},Upper Bracket Final,${WOLVES.name},${OWLS.name},upcoming,9001`]);
    const none = await (await fetch(`${svc.rest}/admin/brackets/codes.csv?stream=other`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(none.trim().split('\n')).toHaveLength(1);
  }, 20_000);

  it('reports each map as game data and the winner at the end; start.gg down while the last map ends loses nothing', async () => {
    const code = set.groupCode;
    // Map 1: the Owls win 13–6.
    const m1 = await play(code, withMatchId(replay, 'bracket-map-1'), [WOLVES.name, OWLS.name]);
    await mapDone(code, m1.observer, 1);
    const map1 = (await fixture(svc.rest, token, code))!.results[0];
    const stageId = VALORANT_STAGES.find((s) => s.name.toLowerCase() === map1.map.toLowerCase())?.id;
    console.log(`map 1 was played on "${map1.map}": stageId ${stageId ?? '(no stage of that name: left out)'}`);
    const game = (n: number, winner: number, scores: [number, number]) => ({ gameNum: n, winnerId: String(winner), entrant1Score: scores[0], entrant2Score: scores[1], ...(stageId ? { stageId } : {}) });
    await expect.poll(() => reports().length, { timeout: 10_000 }).toBe(1);
    expect(reports()[0]).toMatchObject({ name: 'reportBracketSet', args: { setId: '9001', gameData: [game(1, 502, [6, 13])] } });
    expect(reports()[0].args.winnerId).toBeUndefined();

    // Map 2: the players' sides swapped; the Wolves win 13–6 (on the right).
    const m2 = await play(code, swappedTeams(replay, 'bracket-map-2'), [OWLS.name, WOLVES.name]);
    await mapDone(code, m2.observer, 2);
    await expect.poll(() => reports().length, { timeout: 10_000 }).toBe(2);
    expect(reports()[1].args).toEqual({ setId: '9001', gameData: [game(1, 502, [6, 13]), game(2, 501, [13, 6])] });

    // Map 3 ends while start.gg refuses every connection: the report waits and goes when it is back.
    const outage = sg.down(3000);
    const m3 = await play(code, withMatchId(replay, 'bracket-map-3'), [WOLVES.name, OWLS.name]);
    await mapDone(code, m3.observer, 3);
    await expect.poll(() => svc.logged({ msg: 'bracket report not taken (sent again later)', groupCode: code }).length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(reports()).toHaveLength(2);
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0].sync?.errors ?? 0, { timeout: 5_000 }).toBeGreaterThan(0); // the reads back off too
    await outage;
    await expect.poll(() => reports().length, { timeout: 10_000 }).toBe(3);
    expect(reports()[2].args).toEqual({ setId: '9001', winnerId: '502', gameData: [game(1, 502, [6, 13]), game(2, 501, [13, 6]), game(3, 502, [6, 13])] });
    expect(sg.set(9001)).toMatchObject({ state: 3, winnerId: 502 });
    // Kept once the answer came (the mutation is seen first).
    await expect.poll(async () => (await linkedSet(svc.rest, token, 9001))?.report, { timeout: 5_000 }).toMatchObject({ state: 'completed', completed: true, lastError: null, failures: 0 });
    // Sent once more the same: nothing (idempotent by construction: the state is what was taken).
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0].sync?.errors, { timeout: 5_000 }).toBe(0);
    expect(reports()).toHaveLength(3);
  }, 60_000);

  it('re-reports a corrected map result as an update of the decided set; everything sent and answered is shown', async () => {
    const code = set.groupCode;
    const res = await fetch(`${svc.rest}/admin/fixtures/${code}/results/1`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"scores":[9,13]}' });
    expect(res.status).toBe(200);
    await expect.poll(() => reports().length, { timeout: 10_000 }).toBe(4);
    expect(reports()[3]).toMatchObject({ name: 'updateBracketSet', args: { setId: '9001', winnerId: '502' } });
    expect((reports()[3].args.gameData as Array<Record<string, unknown>>)[0]).toMatchObject({ gameNum: 1, entrant1Score: 9, entrant2Score: 13 });
    expect(sg.set(9001).games?.[0]).toMatchObject({ orderNum: 1, entrant1Score: 9, entrant2Score: 13 });

    expect((await fetch(`${svc.rest}/admin/brackets/sets/${code}`)).status).toBe(401);
    const setOf = async () => await (await fetch(`${svc.rest}/admin/brackets/sets/${code}`, { headers: { authorization: `Bearer ${token}` } })).json() as BracketSetView;
    await expect.poll(async () => (await setOf()).report.exchanges!.at(-1)?.operation, { timeout: 5_000 }).toBe('updateBracketSet');
    const one = await setOf();
    const ops = one.report.exchanges!.map((e) => `${e.operation}:${e.ok}`);
    expect(ops[0]).toBe('reportBracketSet:true');
    expect(ops).toContain('reportBracketSet:false'); // the outage's attempts
    expect(ops[ops.length - 1]).toBe('updateBracketSet:true');
    expect(one.report.exchanges![ops.length - 1].answer).toContain('"winnerId":502');

    // The completed set is no longer read (state 3): its decided fixture stays, unflagged.
    const completedAt = reports()[2].at;
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0].sync?.lastSyncAt ?? 0, { timeout: 10_000 }).toBeGreaterThan(completedAt + 100);
    expect(await linkedSet(svc.rest, token, 9001)).toMatchObject({ groupCode: code, flags: [], status: 'finished' });

    // Counted as outbound calls: four reports taken, the outage's attempts failed.
    expect(await svc.metric('ods_backend_calls_total', { call: 'startgg_report', outcome: '2xx' })).toBe(4);
    expect(await svc.metric('ods_backend_call_failures_total', { call: 'startgg_report' })).toBeGreaterThan(0);
    const reads = await svc.metric('ods_backend_calls_total', { call: 'startgg_read', outcome: '2xx' });
    expect(reads).toBeGreaterThan(3);
    // Every request was valid against the schema (the stand-in got each read and report the service
    // counted as answered); the organiser's token is in no log line.
    expect(sg.invalid()).toEqual([]);
    expect(sg.received.length).toBeGreaterThanOrEqual(reads + 4);
    expect(svc.logs.join('\n')).not.toContain(SG_TOKEN);
    expect(JSON.stringify(await brackets(svc.rest, token))).not.toContain(SG_TOKEN);
  }, 30_000);
});
