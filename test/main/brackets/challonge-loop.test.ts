// A Challonge tournament in the loop (README, "Brackets: start.gg and Challonge in the loop";
// docs/brackets.md, "Challonge"), against a real local stand-in for Challonge's API v1 that checks
// every request against the documented API (test/helpers/challonge.ts): the operator links the
// tournament by its subdomain URL (admin API, with and without the admin token); its open upper
// bracket final becomes a fixture by itself (both participants, display name and portrait, the
// link's best of, the match's location as station, a generated group code); three maps are played
// from the recording by real observers on that code (sides swapped on the second), each map's
// result is reported as `match[scores_csv]` and the winner (`match[winner_id]`) with the last;
// Challonge refuses every connection while the last map ends and the report is not lost; the grand
// final the winner moves into appears by itself; a score correction is re-reported, and one that
// changes the winner reopens the match first; every request was valid, the key in no answer or log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { closeAll, serverDisconnect } from '../../helpers/clients.js';
import { fixture, playWholeMap, swappedTeams, withMatchId } from '../../helpers/fixtures.js';
import { recordedMatch, type Replay } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { autumnCup, ChallongeStandin, CH } from '../../helpers/challonge.js';
import { brackets, linkBracket, linkedSet, type BracketSetView } from '../../helpers/brackets.js';

const AUTH_KEY = 'CHALLONGE-LOOP-KEY';
const CH_KEY = 'ch0rg4n1s3rK3yF0rTh3Aut0mnCup2026xyzab'; // an organiser's API key (40 characters, as Challonge's)
const URL = 'https://autumncup.challonge.com/vlr_main';
const WOLVES = CH.wolves.name;
const OWLS = CH.owls.display_name;
const replay = recordedMatch();

describe('a Challonge tournament in the loop', () => {
  let ch: ChallongeStandin;
  let svc: TestService;
  let token: string;
  let set: BracketSetView;

  beforeAll(async () => {
    ch = await ChallongeStandin.start([CH_KEY]);
    ch.tournaments.push(autumnCup());
    svc = await startTestService({ AUTH_KEY, CHALLONGE_API_URL: ch.url, BRACKETS_POLL_MS: '1000', BRACKETS_RETRY_MS: '200', BRACKETS_RETRY_MAX_MS: '1000', BRACKETS_TIMEOUT_MS: '2000' });
    token = svc.admin.token;
  }, 30_000);

  afterAll(async () => {
    closeAll();
    await svc?.close();
    await ch?.close();
  });

  const mapDone = async (code: string, observer: Socket, maps: number) => {
    if (observer.connected) await serverDisconnect(observer, 30_000);
    await expect.poll(async () => (await fixture(svc.rest, token, code))?.results.length, { timeout: 15_000 }).toBe(maps);
  };
  const play = (code: string, map: Replay, expected: [string, string]) => playWholeMap(svc, AUTH_KEY, code, map, { left: expected[0], right: expected[1] }, expected);
  const updates = () => ch.updates.filter((u) => u.matchId === CH.ubf);
  /** The scores_csv the fixture's results ask for (team 1 = player 1). */
  const csvOf = async (code: string) => (await fixture(svc.rest, token, code))!.results.map((r) => `${r.scores[0]}-${r.scores[1]}`).join(',');

  it('links the tournament: refused without the admin token, a bad URL or best of refused, the key never shown again', async () => {
    const body = { platform: 'challonge', url: URL, token: CH_KEY, bestOf: 3 };
    const refused = await fetch(`${svc.rest}/admin/brackets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(refused.status).toBe(401);
    const notChallonge = await linkBracket(svc.rest, token, { ...body, url: 'https://www.start.gg/tournament/x/event/y' });
    expect(notChallonge.status).toBe(400);
    expect(notChallonge.body.error).toMatch(/Challonge/);
    expect((await linkBracket(svc.rest, token, { ...body, bestOf: 2 })).status).toBe(400);
    expect((await linkBracket(svc.rest, token, { ...body, platform: 'smashgg' })).status).toBe(400);
    const linked = await linkBracket(svc.rest, token, body);
    expect(linked.status).toBe(201);
    expect(linked.body.link).toMatchObject({ platform: 'challonge', mode: 'auto', target: { kind: 'tournament', ref: 'autumncup-vlr_main', bestOf: 3 } });
    expect(linked.text).not.toContain(CH_KEY);
    // The same tournament by its API name: linked already.
    expect((await linkBracket(svc.rest, token, { platform: 'challonge', url: 'autumncup-vlr_main', token: CH_KEY })).status).toBe(409);
  });

  it('schedules the open match by itself: both participants, best of, station, a generated code', async () => {
    await expect.poll(() => linkedSet(svc.rest, token, CH.ubf), { timeout: 10_000 }).toBeDefined();
    set = (await linkedSet(svc.rest, token, CH.ubf))!;
    expect(set).toMatchObject({ entrantIds: [String(CH.wolves.id), String(CH.owls.id)], round: 'Round 3', stream: '', station: 'Station 3', teams: [WOLVES, OWLS], status: 'upcoming', flags: [] });
    expect(set.groupCode).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ0-9]{6}$/);
    const f = await fixture(svc.rest, token, set.groupCode) as unknown as { bestOf: number; teams: Array<{ name: string; url: string; players: string[] }> };
    expect(f.bestOf).toBe(3);
    expect(f.teams.map((t) => [t.name, t.url, t.players])).toEqual([[WOLVES, CH.wolves.portrait, []], [OWLS, '', []]]);
    const view = await brackets(svc.rest, token);
    expect(view.sets.map((s) => s.setId)).toEqual([String(CH.ubf)]); // the grand final has one player, the other match is complete
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0], { timeout: 10_000 }).toMatchObject({ name: 'Autumn Cup 2026 – VALORANT', sync: { lastError: null, errors: 0, sets: 1 } });
    // Each read: the tournament, its participants, its open matches; api_key in the query, never anything else.
    const reads = ch.received.filter((r) => r.method === 'GET');
    expect(new Set(reads.map((r) => r.path))).toEqual(new Set(['/v1/tournaments/autumncup-vlr_main.json', '/v1/tournaments/autumncup-vlr_main/participants.json', '/v1/tournaments/autumncup-vlr_main/matches.json']));
    expect(reads.filter((r) => r.path.endsWith('/matches.json')).every((r) => r.query.state === 'open' && r.query.api_key === CH_KEY)).toBe(true);
  }, 20_000);

  it('reports each map as scores_csv and the winner with the last; Challonge down while the last map ends loses nothing; the next match appears', async () => {
    const code = set.groupCode;
    const m1 = await play(code, withMatchId(replay, 'challonge-map-1'), [WOLVES, OWLS]);
    await mapDone(code, m1.observer, 1);
    // The recording: its game team 1 (the Owls, typed on the right) wins 13–6: player 1 (the Wolves) first.
    const csv1 = await csvOf(code);
    expect(csv1).toBe('6-13');
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(1);
    expect(updates()[0].form).toEqual({ 'match[scores_csv]': csv1, api_key: '(key)' });

    // Map 2: the players' sides swapped (the observer types the Owls on the left).
    const m2 = await play(code, swappedTeams(replay, 'challonge-map-2'), [OWLS, WOLVES]);
    await mapDone(code, m2.observer, 2);
    const csv2 = await csvOf(code);
    expect(csv2).toBe('6-13,13-6'); // the Wolves won on the right
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(2);
    expect(updates()[1].form['match[scores_csv]']).toBe(csv2);
    expect(updates()[1].form['match[winner_id]']).toBeUndefined();
    expect(ch.match(CH.ubf)).toMatchObject({ state: 'open', scores_csv: csv2 });

    // Map 3 ends while Challonge refuses every connection: the report waits, and goes once it is back.
    await ch.stop();
    const m3 = await play(code, withMatchId(replay, 'challonge-map-3'), [WOLVES, OWLS]);
    await mapDone(code, m3.observer, 3);
    const f = (await fixture(svc.rest, token, code))!;
    expect(f.status).toBe('finished');
    const winner = f.wins[0] > f.wins[1] ? CH.wolves.id : CH.owls.id;
    expect([f.wins, winner]).toEqual([[1, 2], CH.owls.id]);
    await expect.poll(() => svc.logged({ msg: 'bracket report not taken (sent again later)', groupCode: code }).length, { timeout: 10_000 }).toBeGreaterThan(1);
    await expect.poll(async () => (await brackets(svc.rest, token)).links[0].sync?.errors ?? 0, { timeout: 10_000 }).toBeGreaterThan(0); // the reads back off too
    expect(updates()).toHaveLength(2);
    await ch.resume();
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(3);
    expect(updates()[2].form).toEqual({ 'match[scores_csv]': '6-13,13-6,6-13', 'match[winner_id]': String(CH.owls.id), api_key: '(key)' });
    expect(ch.match(CH.ubf)).toMatchObject({ state: 'complete', winner_id: winner });
    await expect.poll(async () => (await linkedSet(svc.rest, token, CH.ubf))?.report, { timeout: 5_000 }).toMatchObject({ state: 'completed', completed: true, lastError: null, failures: 0 });
    // The grand final took the winner: it is open now, and scheduled by itself.
    await expect.poll(async () => (await linkedSet(svc.rest, token, CH.gf))?.teams, { timeout: 10_000 }).toEqual([CH.lights.name, winner === CH.wolves.id ? WOLVES : OWLS]);
    expect(updates()).toHaveLength(3); // nothing sent twice
  }, 60_000);

  it('re-reports a corrected score; a correction that changes the winner reopens the match first; everything sent and answered is shown', async () => {
    const code = set.groupCode;
    const before = (await fixture(svc.rest, token, code))!;
    const oldWinner = ch.match(CH.ubf).winner_id;
    // A score corrected, the map's winner the same: one PUT with the whole state, the winner unchanged.
    const r1 = before.results[0];
    const s1: [number, number] = r1.scores[0] > r1.scores[1] ? [13, 11] : [11, 13];
    const fixed = await fetch(`${svc.rest}/admin/fixtures/${code}/results/1`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ scores: s1 }) });
    expect(fixed.status).toBe(200);
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(4);
    expect(updates()[3].op).toBe('update');
    expect(updates()[3].form['match[scores_csv]']).toBe(await csvOf(code));
    expect(updates()[3].form['match[scores_csv]'].startsWith(`${s1[0]}-${s1[1]},`)).toBe(true);
    expect(updates()[3].form['match[winner_id]']).toBe(String(oldWinner));

    // Map 3's winner corrected, and with it the series': reopened, then the new whole state.
    const r3 = before.results[2];
    const s3: [number, number] = [r3.scores[1], r3.scores[0]];
    const turned = await fetch(`${svc.rest}/admin/fixtures/${code}/results/3`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ scores: s3 }) });
    expect(turned.status).toBe(200);
    const f = (await fixture(svc.rest, token, code))!;
    const newWinner = f.wins[0] > f.wins[1] ? CH.wolves.id : CH.owls.id;
    expect(newWinner).not.toBe(oldWinner);
    await expect.poll(() => updates().length, { timeout: 10_000 }).toBe(6);
    expect(updates().slice(4).map((u) => u.op)).toEqual(['reopen', 'update']);
    expect(updates()[5].form).toEqual({ 'match[scores_csv]': await csvOf(code), 'match[winner_id]': String(newWinner), api_key: '(key)' });
    expect(ch.match(CH.ubf)).toMatchObject({ state: 'complete', winner_id: newWinner });
    // Challonge reset the grand final and moved the new winner in: its fixture (nothing played) follows.
    await expect.poll(async () => (await brackets(svc.rest, token)).sets.find((s) => s.setId === String(CH.gf))?.teams, { timeout: 10_000 }).toEqual([CH.lights.name, newWinner === CH.wolves.id ? WOLVES : OWLS]);

    expect((await fetch(`${svc.rest}/admin/brackets/sets/${code}`)).status).toBe(401);
    const setOf = async () => await (await fetch(`${svc.rest}/admin/brackets/sets/${code}`, { headers: { authorization: `Bearer ${token}` } })).json() as BracketSetView;
    await expect.poll(async () => (await setOf()).report.exchanges!.at(-1)?.operation, { timeout: 5_000 }).toBe('reopenMatch+updateMatch');
    const one = await setOf();
    const ops = one.report.exchanges!.map((e) => `${e.operation}:${e.ok}`);
    expect(ops[0]).toBe('updateMatch:true');
    expect(ops).toContain('updateMatch:false'); // the outage's attempts
    expect(ops.at(-1)).toBe('reopenMatch+updateMatch:true');
    for (const e of one.report.exchanges!.filter((x) => !x.ok)) expect(e.answer).toMatch(/^Challonge did not answer: (ECONNREFUSED|UND_ERR_SOCKET)$/);
    expect(one.report.exchanges!.at(-1)!.answer).toContain(`"winner_id":${newWinner}`);
    expect(one.flags).toEqual([]);

    // Every request valid per the documented API; the key in no log line, no answer, no exchange.
    expect(ch.invalid()).toEqual([]);
    expect(ch.received.filter((r) => r.method !== 'GET').every((r) => r.form.api_key === CH_KEY && Object.keys(r.query).length === 0)).toBe(true);
    expect(svc.logs.join('\n')).not.toContain(CH_KEY);
    expect(JSON.stringify(await brackets(svc.rest, token))).not.toContain(CH_KEY);
    expect(JSON.stringify(one)).not.toContain(CH_KEY);
  }, 30_000);
});
