// The Challonge adapter (src/main/brackets/adapters/challonge/) against the stand-in
// (test/helpers/challonge.ts), without a service: what a tournament URL or id becomes (the API's
// {tournament}), a group stage's matches that name their players by group player ids (the report's
// winner_id is the id the match names), the per-key rate (Challonge documents none: ours,
// injectable, holds), and Challonge's `{ "errors": [...] }` kept in the exchange with its status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutbound } from '../../../src/main/backend/index.js';
import { ChallongePlatform, CHALLONGE_RATE } from '../../../src/main/brackets/adapters/challonge/platform.js';
import { ChallongeStandin, type ChTournament } from '../../helpers/challonge.js';

const OWNER = 'owner-key-0123456789abcdef0123456789abcd';
const VIEWER = 'viewer-key-0123456789abcdef0123456789abc';

const groups = (): ChTournament => ({
  id: 4100200, url: 'spring_groups', name: 'Spring Groups',
  participants: [
    { id: 700, name: 'Quiet Storm', portrait: 'https://cdn.example.org/teams/quiet-storm.png', group_player_ids: [9700] },
    { id: 701, name: 'Tidebreakers', group_player_ids: [9701] },
    { id: 702, name: 'Northern Lights', group_player_ids: [9702] },
  ],
  matches: [
    { id: 880, round: 1, identifier: 'A', state: 'open', player1_id: 9700, player2_id: 9701, group_id: 31, location: ' Booth 2 ' },
    { id: 881, round: -1, identifier: 'B', state: 'open', player1_id: 702, player2_id: 701 },
    { id: 882, round: 2, identifier: 'C', state: 'pending', player1_id: 9700, player2_id: null, group_id: 31 },
  ],
});

describe('the Challonge adapter', () => {
  let ch: ChallongeStandin;
  const platform = (rate = CHALLONGE_RATE) => new ChallongePlatform({ url: ch.url, timeoutMs: 2000, request: createOutbound(), rate });

  beforeAll(async () => {
    ch = await ChallongeStandin.start([OWNER], [VIEWER]);
    ch.tournaments.push(groups());
  });
  afterAll(async () => { await ch?.close(); });

  it('parses a tournament URL or id into the API\'s {tournament}', () => {
    const p = platform();
    const ref = (input: string) => p.parseTarget(input).ref;
    expect(p.parseTarget('https://challonge.com/spring_groups')).toEqual({ kind: 'tournament', ref: 'spring_groups' });
    expect(ref('https://www.challonge.com/spring_groups/standings')).toBe('spring_groups');
    expect(ref('https://challonge.com/de/spring_groups')).toBe('spring_groups');
    expect(ref('https://autumncup.challonge.com/vlr_main')).toBe('autumncup-vlr_main');
    expect(ref('https://autumncup.challonge.com/fr/vlr_main/module')).toBe('autumncup-vlr_main');
    expect(ref(' 4100200 ')).toBe('4100200');
    expect(ref('autumncup-vlr_main')).toBe('autumncup-vlr_main');
    for (const bad of ['https://www.start.gg/tournament/a/event/b', 'https://challonge.com/', 'https://evil.example/challonge.com/x', 'https://a.b.challonge.com/x', 'not a tournament', 'x/y']) {
      expect(() => p.parseTarget(bad), bad).toThrow(/Challonge tournament/);
    }
  });

  it('reads the open matches with both players known, by the ids the matches name them with; reports winner_id as one of them', async () => {
    const p = platform();
    const read = await p.read({ kind: 'tournament', ref: 'spring_groups', bestOf: 5 }, OWNER);
    expect(read).toMatchObject({ name: 'Spring Groups', stages: [], requests: 3 });
    expect(read.sets).toEqual([
      { id: '880', bestOf: 5, round: 'Group stage Round 1', stream: '', station: 'Booth 2', entrants: [
        { id: '9700', name: 'Quiet Storm', logo: 'https://cdn.example.org/teams/quiet-storm.png', players: [] },
        { id: '9701', name: 'Tidebreakers', logo: '', players: [] }] },
      { id: '881', bestOf: 5, round: 'Losers Round 1', stream: '', station: '', entrants: [
        { id: '702', name: 'Northern Lights', logo: '', players: [] }, { id: '701', name: 'Tidebreakers', logo: '', players: [] }] },
    ]);
    expect((await p.read({ kind: 'tournament', ref: 'spring_groups' }, VIEWER)).sets[0].bestOf).toBe(3); // the default; a viewer's key reads
    const target = { kind: 'tournament', ref: 'spring_groups' };
    const ex = await p.report({ setId: '880', games: [{ num: 1, winnerId: '9701', scores: [11, 13], stageId: null }, { num: 2, winnerId: '9701', scores: [7, 13], stageId: null }], winnerId: '9701' }, OWNER, false, target);
    expect(ex).toMatchObject({ ok: true, operation: 'updateMatch', sent: { tournament: 'spring_groups', matchId: '880', 'match[scores_csv]': '11-13,7-13', 'match[winner_id]': '9701' } });
    expect(ch.match(880)).toMatchObject({ state: 'complete', winner_id: 9701, scores_csv: '11-13,7-13' });
    expect(JSON.stringify(ex)).not.toContain(OWNER);
    expect(ch.invalid()).toEqual([]);
  });

  it('keeps Challonge\'s errors and status in the exchange: a viewer\'s key (401), a match not open (422), no answer', async () => {
    const p = platform();
    const target = { kind: 'tournament', ref: 'spring_groups' };
    const viewer = await p.report({ setId: '881', games: [{ num: 1, winnerId: '702', scores: [13, 2], stageId: null }], winnerId: null }, VIEWER, false, target);
    expect(viewer).toMatchObject({ ok: false, operation: 'updateMatch', answer: 'Challonge answered HTTP 401: Unauthorized (Invalid API key or insufficient permissions)' });
    const pending = await p.report({ setId: '882', games: [{ num: 1, winnerId: '9700', scores: [13, 2], stageId: null }], winnerId: null }, OWNER, false, target);
    expect(pending).toMatchObject({ ok: false, answer: 'Challonge answered HTTP 422: The match is not open: its players are not known yet' });
    await expect(p.read({ kind: 'tournament', ref: 'no_such_cup' }, OWNER)).rejects.toThrow('Challonge answered HTTP 404: Tournament not found within your account scope');
    await ch.stop();
    try {
      const down = await p.report({ setId: '881', games: [{ num: 1, winnerId: '702', scores: [13, 2], stageId: null }], winnerId: null }, OWNER, false, target);
      // Refused, or the kept-alive socket closed under it (undici: UND_ERR_SOCKET): no answer either way.
      expect(down).toMatchObject({ ok: false, answer: expect.stringMatching(/^Challonge did not answer: (ECONNREFUSED|UND_ERR_SOCKET)$/) });
    } finally {
      await ch.resume();
    }
    expect(ch.invalid()).toEqual([]);
    expect(ch.received.some((r) => r.answered.length > 0)).toBe(true);
  });

  it('keeps its rate per key: no more than the limit in any window, the rest wait (none refused)', async () => {
    const p = platform({ requests: 4, windowMs: 1500 });
    const from = ch.received.length;
    const target = { kind: 'tournament', ref: 'spring_groups' };
    const started = Date.now();
    await Promise.all([p.read(target, OWNER), p.read(target, OWNER), p.read(target, OWNER)]); // 9 requests
    const times = ch.received.slice(from).map((r) => r.at);
    expect(times).toHaveLength(9);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000); // 4, then 4 a window later, then 1 a window after that
    // Any 5 consecutive requests span the window (less the first's way to the stand-in, generous on a loaded machine).
    for (let i = 0; i + 4 < times.length; i++) expect(times[i + 4] - times[i]).toBeGreaterThan(1000);
    // Another key has its own window.
    const other = Date.now();
    await p.read(target, VIEWER);
    expect(Date.now() - other).toBeLessThan(1500);
  });
});
